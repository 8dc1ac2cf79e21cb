/**
 * The caller's sessions (GET /v1/chat/sessions) and what waits for it (GET /v1/chat/pending),
 * both read from its participant rows, newest activity first.
 */
import type { ChatSessionsPage, Pending, PendingChat, SessionsInput } from '../../../../../contract/core/chat.ts';
import { invalid } from '../../../../errors.ts';
import type { ChatDeps } from '../deps.ts';
import { isAgent, type ChatParty } from '../domain/participants.ts';
import { timeRemaining, waiterOtherThan } from '../domain/wait-window.ts';
import { isWaiting, membershipOf, sessionParties, viewerOf } from '../membership.ts';
import { findChatMessage, messageRowIdInSessionsOf, toLastMessage, type ChatMessageWithProject } from '../store/messages.ts';
import { sessionMemberships, sessionSummaries, type SessionListOptions, type SessionSummaryRow } from '../store/participants.ts';
import { chatAsRead } from './message-views.ts';
import { othersFields } from './party-views.ts';

interface SessionSummary {
  row: SessionSummaryRow;
  last: ChatMessageWithProject | undefined;
}

/**
 * GET /v1/chat/sessions: the caller's sessions, most recent activity first; every one without
 * `limit` (as upstream), else a page with `has_more` and `next_before` (the message_id that
 * ended it, which stays a fixed place in the order however the list moves). Ours beside
 * upstream's fields: `last_message`, `participants_left` (the others who left) and `you_left`.
 */
export function listSessions(deps: ChatDeps, agentId: string, query: SessionsInput = {}): ChatSessionsPage {
  const viewer = viewerOf(deps, agentId);
  const before = query.before === undefined ? undefined : sessionCursor(deps, agentId, query.before);
  const rows = summaries(deps, agentId, { before, limit: query.limit === undefined ? undefined : query.limit + 1 });
  const hasMore = query.limit !== undefined && rows.length > query.limit;
  const page = hasMore ? rows.slice(0, query.limit) : rows;
  return {
    sessions: page.map(({ row, last }) => {
      const others = othersIn(deps, row.session_id, agentId);
      const memberships = sessionMemberships(deps.ctx.db, row.session_id);
      return {
        session_id: row.session_id,
        ...othersFields(others),
        created_at: row.created_at,
        last_activity: last?.created_at ?? row.created_at,
        sender_waiting: someoneWaiting(deps, row.session_id, others),
        unread_count: row.unread_count,
        last_message: last === undefined ? null : toLastMessage(last, viewer),
        participants_left: others.filter((p) => (membershipOf(memberships, p)?.left_at ?? null) !== null).map((p) => p.alias),
        you_left: row.my_left_at !== null,
      };
    }),
    has_more: hasMore,
    next_before: hasMore ? (page.at(-1)?.last?.message_id ?? null) : null,
  };
}

/**
 * GET /v1/chat/pending: sessions with unread messages, or with a live wait window that someone
 * else started and is still connected to; plus the caller's unread mail count.
 */
export function pending(deps: ChatDeps, agentId: string): Pending {
  const { ctx, presence } = deps;
  const now = ctx.clock.now().getTime();
  const viewer = viewerOf(deps, agentId);
  const chats: PendingChat[] = [];
  for (const { row, last } of summaries(deps, agentId, { pendingOnly: true })) {
    const waiter = waiterOtherThan(row, agentId, now);
    const waitedOn = waiter !== null && presence.isConnected(row.session_id, waiter);
    if (row.unread_count === 0 && !waitedOn) continue;
    const others = othersIn(deps, row.session_id, agentId);
    // The newest message as the caller reads it: for a caller holding its own keys, its envelope.
    const read = last === undefined ? undefined : chatAsRead(last, viewer);
    chats.push({
      session_id: row.session_id,
      ...othersFields(others),
      last_message: read?.body ?? null,
      last_message_id: last?.message_id ?? null,
      last_from: last?.from_alias ?? null,
      last_from_address: last ? (last.from_address ?? last.from_alias) : null,
      last_from_did: last?.from_did ?? null,
      last_from_stable_id: last?.from_stable_id ?? null,
      unread_count: row.unread_count,
      last_activity: last?.created_at ?? row.created_at,
      sender_waiting: someoneWaiting(deps, row.session_id, others),
      // Upstream answers 0 when no window is open.
      time_remaining_seconds: timeRemaining(row, now) ?? 0,
      last_message_content_mode: read?.content_mode ?? null,
      last_message_version: read?.message_version ?? null,
      ...(read?.encrypted_envelope === undefined ? {} : { last_encrypted_envelope: read.encrypted_envelope }),
    });
  }
  return { pending: chats, messages_waiting: deps.mail.unreadCount(agentId) };
}

/** Where `before` (a message_id in one of the caller's sessions) sits in the list's order. */
function sessionCursor({ ctx }: ChatDeps, agentId: string, messageId: string): number {
  const id = messageRowIdInSessionsOf(ctx.db, agentId, messageId);
  if (id === undefined) throw invalid('SVC_ERR_VALIDATION', [{ loc: ['query', 'before'], msg: `no message ${messageId} in your chats`, type: 'value_error' }]);
  return id;
}

/** The caller's sessions in list order, each with its newest message. */
function summaries({ ctx }: ChatDeps, agentId: string, options: SessionListOptions): SessionSummary[] {
  return sessionSummaries(ctx.db, agentId, options).map((row) => ({
    row,
    last: row.last_id === 0 ? undefined : findChatMessage(ctx.db, row.last_id, agentId),
  }));
}

function othersIn(deps: ChatDeps, sessionId: string, agentId: string): ChatParty[] {
  return sessionParties(deps, sessionId).filter((p) => !isAgent(p, agentId));
}

/** Someone else is waiting in the session. */
function someoneWaiting(deps: ChatDeps, sessionId: string, others: readonly ChatParty[]): boolean {
  return others.some((p) => isWaiting(deps, sessionId, p.agent?.agent_id ?? null));
}
