/**
 * Unread chat for the identity event stream (`chat_message` wake items) and for the node-wide
 * wake feed (the owner's notifications and badges).
 */
import type { ChatDeps } from '../deps.ts';
import { isAgent } from '../domain/participants.ts';
import { isWaiting, sessionParties } from '../membership.ts';
import {
  findChatMessage,
  messagesPostedSince,
  toWakeItem,
  unreadMessagesOf,
  type ChatMessageRow,
  type ChatWakeItem,
  type ChatWakeMessage,
} from '../store/messages.ts';
import { sessionSummaries } from '../store/participants.ts';

/** A node-wide wake item: for which identity, and whether the message was a goodbye or a return (the session row says so at once). */
export type PostedChat = ChatWakeMessage & { to_agent_id: string; sender_leaving: boolean; sender_rejoining: boolean; end_to_end: boolean };

type SessionFields = Omit<ChatWakeItem, keyof ChatWakeMessage | 'wake_mode'>;

/**
 * Unread chat messages others sent to `agentId`, newer than row id `afterId`, oldest first, each
 * with upstream's summary of its session as the reader sees it now.
 */
export function wakeItems(deps: ChatDeps, agentId: string, afterId: number, limit = 500): ChatWakeItem[] {
  const sessions = new Map<string, SessionFields>();
  return unreadMessagesOf(deps.ctx.db, agentId, afterId, limit).map((row) => {
    const item = wakeItem(deps, row);
    let session = sessions.get(row.session_id);
    if (session === undefined) {
      session = sessionFields(deps, agentId, item);
      sessions.set(row.session_id, session);
    }
    return { ...item, ...session, wake_mode: item.sender_waiting ? 'interrupt' : 'prompt' };
  });
}

/** Up to `limit` chat messages stored after row `afterId`, once per recipient of this node: the node-wide wake feed's source. */
export function postedSince(deps: ChatDeps, afterId: number, limit: number): PostedChat[] {
  return messagesPostedSince(deps.ctx.db, afterId, limit).map((row) => ({
    ...wakeItem(deps, row),
    to_agent_id: row.to_agent_id,
    sender_leaving: row.sender_leaving === 1,
    sender_rejoining: row.sender_rejoining === 1,
    // As stored: an encrypted message's row holds no text, and this feed is not its reader's.
    end_to_end: row.content_mode === 'encrypted_v2',
  }));
}

function wakeItem(deps: ChatDeps, row: ChatMessageRow): ChatWakeMessage {
  return toWakeItem(row, isWaiting(deps, row.session_id, row.from_agent_id));
}

/** The session as `agentId` sees it: the others, its newest message, what is unread. */
function sessionFields(deps: ChatDeps, agentId: string, item: ChatWakeMessage): SessionFields {
  const { db } = deps.ctx;
  const [summary] = sessionSummaries(db, agentId, { sessionId: item.session_id });
  const last = summary === undefined || summary.last_id === 0 ? undefined : findChatMessage(db, summary.last_id, agentId);
  return {
    participants: sessionParties(deps, item.session_id)
      .filter((p) => !isAgent(p, agentId))
      .map((p) => p.alias),
    last_message: last?.body ?? item.body,
    last_from: last?.from_alias ?? item.from_alias,
    last_activity: last?.created_at ?? item.created_at,
    unread_count: summary?.unread_count ?? 1,
  };
}
