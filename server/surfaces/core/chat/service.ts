/**
 * Chat (spec §4.4; upstream research/anchor-core.md §10.2, §10.3): sessions between identities,
 * signed messages, read watermarks, send-and-wait windows, and the reads the session stream and
 * the identity event stream are built from. One implementation for HTTP and MCP.
 *
 * Every message is signed inside custody with the sender's current key (messaging/signing.ts).
 * Each write publishes on the bus after it commits: the session topic (message and read-receipt
 * frames) and the identity topic of every participant it concerns (wake items).
 *
 * A two-party session may have a participant on another node (`remote:<address>`): what the local
 * participant sends is also queued in the federation outbox, and what the other sends arrives
 * through federation (`receiveRemote`); each node keeps its own copy of the session.
 */
import { randomUUID } from 'node:crypto';
import {
  MAX_CHAT_MESSAGE_BYTES,
  type ChatHistory,
  type ChatLastMessage,
  type ChatMember,
  type ChatMessage,
  type ChatParticipant,
  type ChatReadMarked,
  type ChatSessionsPage,
  type CreateSessionInput,
  type HistoryInput,
  type Pending,
  type PendingChat,
  type ReadReceipt,
  type SendChatResult,
  type SendMessageInput,
  type SessionsInput,
  type StartChatResult,
} from '../../../../contract/core/chat.ts';
import type { ChatWakeFrame } from '../../../../contract/core/events.ts';
import { FEDERATION_VERSION, type FederatedChat } from '../../../../contract/core/federation.ts';
import type { NodeContext } from '../../../context.ts';
import { conflict, forbidden, invalid, notFound, tooLarge } from '../../../errors.ts';
import { identityTopic, sessionTopic } from '../../../events/bus.ts';
import type { FederationOutbox } from '../../../federation/outbox.ts';
import type { AgentRow, IdentityService } from '../identities/service.ts';
import type { Party, Recipient } from '../messaging/participants.ts';
import { assertReachable } from '../messaging/reachability.ts';
import type { Recipients, RecipientSelector } from '../messaging/recipients.ts';
import { senderNamespaceTrust } from '../messaging/sender-trust.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import { signatureStatus, signMessage, type SignedMessage } from '../messaging/signing.ts';
import { ChatPresence } from './presence.ts';

/** What a hang_on message adds to the wait window, and what a read receipt asks a waiter to add. */
export const HANG_ON_EXTENSION_SECONDS = 300;
/** How many messages a session stream replays for `after`. */
export const STREAM_REPLAY_LIMIT = 50;
const PREVIEW_CHARS = 200;

interface SessionRow {
  session_id: string;
  created_by: string;
  participant_key: string;
  participant_count: number;
  wait_seconds: number | null;
  wait_started_at: string | null;
  wait_started_by: string | null;
  hang_on_count: number;
  created_at: string;
}

interface ParticipantRow {
  session_id: string;
  agent_id: string;
  last_read_id: number;
  last_read_at: string | null;
  /** When its latest message said it was leaving; null while it takes part. */
  left_at: string | null;
  /** The session's newest message row id (the list's order). */
  last_message_id: number;
}

interface MessageRow {
  id: number;
  message_id: string;
  session_id: string;
  from_agent_id: string;
  /** Null for a sender on another node. */
  from_project_id: string | null;
  from_alias: string;
  from_address: string | null;
  from_did: string;
  from_stable_id: string | null;
  to_text: string;
  to_did: string;
  body: string;
  reply_to: string | null;
  sender_leaving: number;
  /** Ours: the message took its sender back into a chat it had left. */
  sender_rejoining: number;
  hang_on: number;
  wait_seconds: number | null;
  signature: string;
  signed_payload: string;
  timestamp: string;
  created_at: string;
  /** For a message from another node: whether its sender's namespace was found DNS-verified. */
  from_namespace_trust: string | null;
}

/** Who is reading: agent ids are shown only within the reader's own project (as resolve does). */
export interface ChatViewer {
  agentId: string;
  projectId: string;
}

/** A stored message with its row id: the cursor streams advance by. */
export interface StreamMessage {
  id: number;
  view: ChatMessage;
}

/** One unread chat message for the identity event stream (the `chat_message` frame, contract/core/events.ts). */
export type ChatWakeItem = Omit<ChatWakeFrame, 'type'> & {
  /** chat_messages.id: the event stream's cursor. */
  id: number;
};

const MESSAGE_SELECT = `SELECT m.*, a.project_id AS from_project_id FROM chat_messages m LEFT JOIN agents a ON a.agent_id = m.from_agent_id`;

/**
 * A participant: an identity of this node (`agent` set, `id` its agent_id), or one on another node
 * (`agent` null, `id` `remote:<address>`), which takes part through federation.
 */
export interface ChatParty extends Omit<Party, 'agent'> {
  id: string;
  agent: AgentRow | null;
}

type ChatContent = { body: string; reply_to: string | null; wait_seconds: number | null; hang_on: boolean; sender_leaving: boolean };

/** A participant of this node as the shared rules (signing, reachability) take it. */
function asParty(party: ChatParty): Party {
  if (party.agent === null) throw new Error(`${party.id} is not an identity of this node`);
  return { ...party, agent: party.agent };
}

/** How an identity on another node is named where an agent_id would be. */
const REMOTE_PREFIX = 'remote:';
export const remoteParticipantId = (address: string): string => `${REMOTE_PREFIX}${address}`;

const localParty = (party: Party): ChatParty => ({ ...party, id: party.agent.agent_id });

/** An identity on another node, known by its address (and its key once it has written). */
function remoteParty(address: string, did = ''): ChatParty {
  return {
    id: remoteParticipantId(address),
    agent: null,
    alias: address.slice(address.indexOf('/') + 1),
    address,
    didKey: did.startsWith('did:key:') ? did : '',
    stableId: did.startsWith('did:key:') || did === '' ? null : did,
  };
}

/** Sorted participant ids joined by ',': the session's participant_key. */
function participantKey(parties: ChatParty[]): string {
  return parties
    .map((p) => p.id)
    .sort()
    .join(',');
}

function assertMessageSize(text: string, field: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_CHAT_MESSAGE_BYTES) throw tooLarge(`${field} is ${bytes} bytes; a chat message holds at most ${MAX_CHAT_MESSAGE_BYTES} bytes (64 KiB)`);
}

export class ChatService {
  readonly #ctx: NodeContext;
  readonly #identities: IdentityService;
  readonly #recipients: Recipients;
  readonly #outbox: FederationOutbox;
  readonly #namespaces: NamespaceService;
  readonly presence = new ChatPresence();

  constructor(ctx: NodeContext, identities: IdentityService, recipients: Recipients, outbox: FederationOutbox, namespaces: NamespaceService) {
    this.#ctx = ctx;
    this.#identities = identities;
    this.#recipients = recipients;
    this.#outbox = outbox;
    this.#namespaces = namespaces;
  }

  viewer(agentId: string): ChatViewer {
    return { agentId, projectId: this.#identities.row(agentId).project_id };
  }

  // ---------------------------------------------------------------- writes

  /**
   * POST /v1/chat/sessions: resolves every target, refuses yourself, duplicates and recipients
   * that do not accept the sender, then sends into the session of exactly these participants
   * (reused for two, new for a group) and records a send-and-wait window.
   */
  createOrSend(agentId: string, input: CreateSessionInput): StartChatResult {
    const { db } = this.#ctx;
    assertMessageSize(input.message, 'message');
    const senderRow = this.#identities.row(agentId);
    const sender = localParty(this.#recipients.party(senderRow));
    const selectors: RecipientSelector[] = [
      ...input.to_aliases.map((alias) => ({ alias })),
      ...input.to_addresses.map((address) => ({ address })),
      ...input.to_dids.map((did) => ({ did })),
    ];
    const resolved = selectors.map((selector) => this.#recipients.resolveAcrossNodes(senderRow, selector));
    const targets = resolved.map((target) => ('remote' in target ? { ...remoteParty(target.address), to: target.to } : { ...localParty(target), to: target.to }));
    if (targets.some((t) => t.agent === null)) this.#assertFederatable(sender, targets);
    const seen = new Map<string, string>();
    for (const target of targets) {
      if (target.id === agentId) throw invalid(`${target.to} is you: a chat needs another participant`);
      const earlier = seen.get(target.id);
      if (earlier !== undefined) throw invalid(`${earlier} and ${target.to} are the same recipient`);
      seen.set(target.id, target.to);
    }
    // As in a session: a target that already took part in this pair's session has answered the
    // sender before, so its contacts-only rule does not stop the conversation continuing. A target
    // on another node applies its rule there.
    const pair = targets.length === 1 ? this.#pairSession(participantKey([sender, ...targets])) : undefined;
    for (const target of targets) {
      if (target.agent !== null && !(pair && this.#hasEngaged(pair, target.id))) assertReachable(db, asParty(sender), { ...target, agent: target.agent });
    }

    const now = this.#ctx.clock.now().toISOString();
    const { session, message } = db.transaction(() => {
      const session = this.#sessionFor(sender, targets, now);
      this.#assertReplyTo(session.session_id, input.reply_to);
      const content = { body: input.message, reply_to: input.reply_to ?? null, wait_seconds: input.wait_seconds ?? null, hang_on: input.hang_on, sender_leaving: input.leaving };
      const message = this.#insert(session, sender, this.#addressee(targets), now, content);
      this.#forward(sender, targets, message, content);
      return { session, message };
    })();
    this.#publish(session.session_id, targets.map((t) => t.id));
    if (targets.some((t) => t.agent === null)) this.#outbox.nudge();

    const viewer = { agentId, projectId: senderRow.project_id };
    return {
      session_id: session.session_id,
      message_id: message.message_id,
      participants: this.#parties(session.session_id).map((party) => this.#participantView(viewer, party)),
      sse_url: `/v1/chat/sessions/${session.session_id}/stream`,
      targets_connected: targets.filter((t) => this.presence.isConnected(session.session_id, t.id)).map((t) => t.alias),
      targets_left: targets.filter((t) => this.#hasLeft(session.session_id, t.id)).map((t) => t.alias),
    };
  }

  /** POST /v1/chat/sessions/{id}/messages: a message to every other participant. */
  send(agentId: string, sessionId: string, input: SendMessageInput): SendChatResult {
    const { db } = this.#ctx;
    const session = this.#memberSession(agentId, sessionId);
    assertMessageSize(input.body, 'body');
    const parties = this.#parties(sessionId);
    const sender = parties.find((p) => p.id === agentId) ?? localParty(this.#recipients.party(this.#identities.row(agentId)));
    const others = parties.filter((p) => p.id !== agentId).map((p) => ({ ...p, to: p.address ?? p.alias }));
    // Being in the session is permission to answer those who took part in it; a contacts-only
    // participant that has not spoken yet is still protected by its own rule.
    for (const other of others) {
      if (other.agent !== null && !this.#hasEngaged(session, other.id)) assertReachable(db, asParty(sender), { ...other, agent: other.agent });
    }
    const now = this.#ctx.clock.now().toISOString();
    const message = db.transaction(() => {
      if (input.rejoining && !this.#hasLeft(sessionId, agentId)) throw conflict('You are in this chat: there is nothing to rejoin');
      this.#assertReplyTo(sessionId, input.reply_to);
      const fresh = this.#session(sessionId) as SessionRow;
      const content = { body: input.body, reply_to: input.reply_to ?? null, wait_seconds: null, hang_on: input.hang_on, sender_leaving: input.leaving };
      const signed = this.#insert(fresh, sender, this.#addressee(others), now, content, input.rejoining);
      this.#forward(sender, others, signed, content);
      return signed;
    })();
    this.#publish(sessionId, others.map((p) => p.id));
    if (others.some((p) => p.agent === null)) this.#outbox.nudge();
    return {
      message_id: message.message_id,
      session_id: sessionId,
      delivered: true as const,
      extends_wait_seconds: input.hang_on ? HANG_ON_EXTENSION_SECONDS : 0,
    };
  }

  /** Whether this message from that key is already stored (a retried delivery); another message under its id is a conflict. */
  hasMessage(messageId: string, fromDid: string): boolean {
    const stored = this.#ctx.db.prepare(`SELECT from_did FROM chat_messages WHERE message_id = ?`).pluck().get(messageId) as string | undefined;
    if (stored === undefined) return false;
    if (stored !== fromDid) throw conflict(`Refused: message_id ${messageId} is already taken`);
    return true;
  }

  /**
   * A chat message from an identity on another node, whose signature and address federation has
   * checked: stored in the two-party session of this pair (made by its first message). A
   * contacts-only recipient takes it from a contact, or from someone it has answered there.
   */
  receiveRemote(
    message: FederatedChat,
    recipient: AgentRow & { address: string },
    options: { contact: boolean; namespaceTrust: 'verified' | 'unverified' },
  ): void {
    const { db } = this.#ctx;
    const local = localParty(this.#recipients.party(recipient));
    const remote = remoteParty(message.from, message.from_stable_id ?? message.from_did);
    const now = this.#ctx.clock.now().toISOString();
    const sessionId = db.transaction(() => {
      const existing = this.#pairSession(participantKey([local, remote]));
      const answered = existing !== undefined && this.#hasSpoken(existing.session_id, local.id);
      if (recipient.address_reachability === 'contacts-only' && !options.contact && !answered) {
        throw forbidden(`Refused: ${message.to} only accepts messages from contacts`);
      }
      // Made here by the first message, the session is recorded as the local participant's.
      const session = existing ?? this.#sessionFor(local, [remote], now);
      db.prepare(`UPDATE chat_participants SET alias = ?, did = ? WHERE session_id = ? AND agent_id = ?`).run(
        remote.alias,
        remote.stableId ?? message.from_did,
        session.session_id,
        remote.id,
      );
      this.#store({
        message_id: message.message_id,
        session_id: session.session_id,
        from_agent_id: remote.id,
        from_alias: remote.alias,
        from_address: message.from,
        from_did: message.from_did,
        from_stable_id: message.from_stable_id,
        to_text: message.to,
        to_did: '',
        body: message.body,
        reply_to: message.reply_to,
        sender_leaving: message.sender_leaving,
        hang_on: message.hang_on,
        wait_seconds: message.wait_seconds,
        signature: message.signature,
        signed_payload: message.signed_payload,
        timestamp: message.timestamp,
        created_at: now,
        from_namespace_trust: options.namespaceTrust,
      });
      // Its hang_on extends a local wait; its own wait window lives on its node.
      this.#updateWaitWindow(session, remote.id, { wait_seconds: null, hang_on: message.hang_on, sender_leaving: message.sender_leaving }, now);
      return session.session_id;
    })();
    this.#publish(sessionId, [local.id]);
  }

  /** A chat with someone on another node has exactly two participants, and the sender needs an address. */
  #assertFederatable(sender: ChatParty, targets: (ChatParty & { to: string })[]): void {
    const remote = targets.find((t) => t.agent === null) as ChatParty & { to: string };
    if (targets.length > 1) throw invalid(`${remote.to} is on another node: a chat across nodes has two participants, so start it with that address alone`);
    if (sender.address === null) throw invalid(`${remote.to} is on another node, which can only check a sender with an address: give this identity an address first`);
  }

  /** Queues the signed message for each participant on another node (inside the send's transaction). */
  #forward(sender: ChatParty, recipients: ChatParty[], signed: SignedMessage, content: ChatContent): void {
    for (const recipient of recipients) {
      if (recipient.agent !== null || recipient.address === null) continue;
      this.#outbox.enqueue(sender.id, recipient.address.slice(0, recipient.address.indexOf('/')), {
        v: FEDERATION_VERSION,
        kind: 'chat',
        message_id: signed.message_id,
        from: signed.from,
        from_did: signed.from_did,
        from_stable_id: signed.from_stable_id,
        to: recipient.address,
        body: content.body,
        reply_to: content.reply_to,
        wait_seconds: content.wait_seconds,
        hang_on: content.hang_on,
        sender_leaving: content.sender_leaving,
        timestamp: signed.timestamp,
        signature: signed.signature,
        signed_payload: signed.signed_payload,
      });
    }
  }

  /**
   * POST /v1/chat/sessions/{id}/read: moves the caller's watermark up to that message. Monotonic:
   * an older message never moves it back; `messages_marked` counts others' messages newly read.
   */
  markRead(agentId: string, sessionId: string, upToMessageId: string): ChatReadMarked {
    const { db } = this.#ctx;
    this.#memberSession(agentId, sessionId);
    const target = db.prepare(`SELECT id FROM chat_messages WHERE session_id = ? AND message_id = ?`).get(sessionId, upToMessageId) as
      | { id: number }
      | undefined;
    if (!target) throw notFound('Message not found in this session');
    const now = this.#ctx.clock.now().toISOString();
    const marked = db.transaction(() => {
      const { last_read_id: from } = this.#participant(sessionId, agentId) as ParticipantRow;
      if (target.id <= from) return null;
      const count = db
        .prepare(`SELECT COUNT(*) FROM chat_messages WHERE session_id = ? AND id > ? AND id <= ? AND from_agent_id <> ?`)
        .pluck()
        .get(sessionId, from, target.id, agentId) as number;
      db.prepare(`UPDATE chat_participants SET last_read_id = ?, last_read_at = ? WHERE session_id = ? AND agent_id = ?`).run(target.id, now, sessionId, agentId);
      return count;
    })();
    if (marked !== null) this.#publish(sessionId, this.#participantIds(sessionId));
    return { success: true as const, messages_marked: marked ?? 0 };
  }

  // ---------------------------------------------------------------- reads

  /**
   * GET /v1/chat/sessions: the caller's sessions, most recent activity first; every one without
   * `limit` (as upstream), else a page with `has_more` and `next_before` (the message_id that
   * ended it, which stays a fixed place in the order however the list moves). Ours beside
   * upstream's fields: `last_message`, `participants_left` (the others who left) and `you_left`.
   */
  listSessions(agentId: string, query: SessionsInput = {}): ChatSessionsPage {
    const viewer = this.viewer(agentId);
    const before = query.before === undefined ? undefined : this.#sessionCursor(agentId, query.before);
    const rows = this.#summaries(agentId, { before, limit: query.limit === undefined ? undefined : query.limit + 1 });
    const hasMore = query.limit !== undefined && rows.length > query.limit;
    const page = hasMore ? rows.slice(0, query.limit) : rows;
    return {
      sessions: page.map((s) => {
        const others = this.#parties(s.session.session_id).filter((p) => p.id !== agentId);
        const members = this.#memberships(s.session.session_id);
        return {
          session_id: s.session.session_id,
          ...this.#othersFields(others),
          created_at: s.session.created_at,
          last_activity: s.last?.created_at ?? s.session.created_at,
          sender_waiting: this.#senderWaiting(s.session.session_id, others),
          unread_count: s.unread_count,
          last_message: s.last === undefined ? null : this.#lastMessageView(viewer, s.last),
          participants_left: others.filter((p) => (members.get(p.id)?.left_at ?? null) !== null).map((p) => p.alias),
          you_left: s.left_at !== null,
        };
      }),
      has_more: hasMore,
      next_before: hasMore ? (page.at(-1)?.last?.message_id ?? null) : null,
    };
  }

  /** Where `before` (a message_id in one of the caller's sessions) sits in the list's order. */
  #sessionCursor(agentId: string, messageId: string): number {
    const id = this.#ctx.db
      .prepare(`SELECT m.id FROM chat_messages m JOIN chat_participants cp ON cp.session_id = m.session_id AND cp.agent_id = ? WHERE m.message_id = ?`)
      .pluck()
      .get(agentId, messageId) as number | undefined;
    if (id === undefined) throw invalid([{ loc: ['query', 'before'], msg: `no message ${messageId} in your chats`, type: 'value_error' }]);
    return id;
  }

  /**
   * GET /v1/chat/pending: sessions with unread messages, or with a live wait window that someone
   * else started and is still connected to; plus the caller's unread mail count.
   */
  pending(agentId: string): Pending {
    const now = this.#ctx.clock.now().getTime();
    const pending: PendingChat[] = [];
    for (const s of this.#summaries(agentId, { pendingOnly: true })) {
      const { session } = s;
      const remaining = this.#timeRemaining(session, now);
      const waitedOn =
        remaining !== null &&
        remaining > 0 &&
        session.wait_started_by !== null &&
        session.wait_started_by !== agentId &&
        this.presence.isConnected(session.session_id, session.wait_started_by);
      if (s.unread_count === 0 && !waitedOn) continue;
      const others = this.#parties(session.session_id).filter((p) => p.id !== agentId);
      pending.push({
        session_id: session.session_id,
        ...this.#othersFields(others),
        last_message: s.last?.body ?? null,
        last_message_id: s.last?.message_id ?? null,
        last_from: s.last?.from_alias ?? null,
        last_from_address: s.last ? (s.last.from_address ?? s.last.from_alias) : null,
        last_from_did: s.last?.from_did ?? null,
        last_from_stable_id: s.last?.from_stable_id ?? null,
        unread_count: s.unread_count,
        last_activity: s.last?.created_at ?? session.created_at,
        sender_waiting: this.#senderWaiting(session.session_id, others),
        time_remaining_seconds: remaining,
      });
    }
    const mail = this.#ctx.db.prepare(`SELECT COUNT(*) FROM messages WHERE to_agent_id = ? AND read_at IS NULL`).pluck().get(agentId) as number;
    return { pending, messages_waiting: mail };
  }

  /** GET /v1/chat/sessions/{id}/messages: the newest `limit` messages, oldest first. */
  history(agentId: string, sessionId: string, query: HistoryInput): ChatHistory {
    const viewer = this.viewer(agentId);
    const member = this.#participant(sessionId, agentId);
    if (!member) throw notFound('Session not found');
    const where = ['m.session_id = ?'];
    const params: (string | number)[] = [sessionId];
    if (query.unread_only) {
      where.push('m.id > ?', 'm.from_agent_id <> ?');
      params.push(member.last_read_id, agentId);
    }
    if (query.message_id !== undefined) {
      where.push('m.message_id = ?');
      params.push(query.message_id);
    }
    const rows = this.#ctx.db
      .prepare(`SELECT * FROM (${MESSAGE_SELECT} WHERE ${where.join(' AND ')} ORDER BY m.id DESC LIMIT +?) ORDER BY id`)
      .all(...params, query.limit) as MessageRow[];
    const members = this.#memberships(sessionId);
    return {
      messages: rows.map((row) => this.#messageView(viewer, row)),
      // Ours: who has read how far and who left, so a client shows receipts and membership after a reload.
      participants: this.#parties(sessionId).map((party): ChatMember => {
        const member = members.get(party.id);
        return {
          ...this.#participantView(viewer, party),
          last_read_message_id: member?.last_read_message_id ?? null,
          read_at: member?.read_at ?? null,
          left_at: member?.left_at ?? null,
        };
      }),
    };
  }

  /**
   * Unread chat messages others sent to `agentId`, newer than row id `afterId`, oldest first:
   * the identity event stream's `chat_message` wake items.
   */
  wakeItems(agentId: string, afterId: number, limit = 500): ChatWakeItem[] {
    const rows = this.#ctx.db
      .prepare(
        `SELECT m.* FROM chat_participants cp JOIN chat_messages m ON m.session_id = cp.session_id
         WHERE cp.agent_id = ? AND m.id > cp.last_read_id AND m.id > ? AND m.from_agent_id <> cp.agent_id
         ORDER BY m.id LIMIT +?`,
      )
      .all(agentId, afterId, limit) as MessageRow[];
    return rows.map((row) => this.#wakeItem(row));
  }

  #wakeItem(row: MessageRow): ChatWakeItem {
    return {
      id: row.id,
      message_id: row.message_id,
      session_id: row.session_id,
      from_alias: row.from_alias,
      from_address: row.from_address,
      from_did: row.from_did,
      from_stable_id: row.from_stable_id,
      body: row.body,
      preview: row.body.length > PREVIEW_CHARS ? row.body.slice(0, PREVIEW_CHARS) : row.body,
      created_at: row.created_at,
      sender_waiting: this.#waiting(row.session_id, row.from_agent_id),
    };
  }

  /**
   * Up to `limit` chat messages stored after row `afterId`, once per recipient: the node-wide wake
   * feed's source. It also says whether each was a goodbye or a return, so the owner's session
   * list can say so at once.
   */
  postedSince(afterId: number, limit: number): (ChatWakeItem & { to_agent_id: string; sender_leaving: boolean; sender_rejoining: boolean })[] {
    const rows = this.#ctx.db
      .prepare(
        `SELECT m.*, cp.agent_id AS to_agent_id FROM chat_messages m
         JOIN chat_participants cp ON cp.session_id = m.session_id AND cp.agent_id <> m.from_agent_id AND cp.agent_id NOT LIKE 'remote:%'
         WHERE m.id IN (SELECT id FROM chat_messages WHERE id > ? ORDER BY id LIMIT +?) ORDER BY m.id`,
      )
      .all(afterId, limit) as (MessageRow & { to_agent_id: string })[];
    return rows.map((row) => ({
      ...this.#wakeItem(row),
      to_agent_id: row.to_agent_id,
      sender_leaving: row.sender_leaving === 1,
      sender_rejoining: row.sender_rejoining === 1,
    }));
  }

  lastMessageRowId(): number {
    return this.#ctx.db.prepare(`SELECT COALESCE(MAX(id), 0) FROM chat_messages`).pluck().get() as number;
  }

  // ---------------------------------------------------------------- session stream

  /** The stream's gate: a non-participant (or an unknown session) is refused before it opens. */
  assertStreamable(agentId: string, sessionId: string): ChatViewer {
    if (!this.#participant(sessionId, agentId)) throw forbidden('Not a participant in this session');
    return this.viewer(agentId);
  }

  /**
   * Marks the viewer connected to the session while its stream is open, and nudges the other
   * participants' identity streams (their `sender_waiting` changed). Returns the release.
   */
  connect(sessionId: string, agentId: string): () => void {
    const release = this.presence.connect(sessionId, agentId);
    const others = this.#participantIds(sessionId).filter((id) => id !== agentId);
    for (const id of others) this.#ctx.bus.publish(identityTopic(id));
    return () => {
      release();
      for (const id of others) this.#ctx.bus.publish(identityTopic(id));
    };
  }

  /** The row id of a message (0 when unknown): where a wait for replies to it starts. */
  rowIdOf(messageId: string): number {
    return (this.#ctx.db.prepare(`SELECT id FROM chat_messages WHERE message_id = ?`).pluck().get(messageId) as number | undefined) ?? 0;
  }

  /** The highest message row id in the session (0 when empty): where a live stream starts. */
  lastMessageId(sessionId: string): number {
    return this.#ctx.db.prepare(`SELECT COALESCE(MAX(id), 0) FROM chat_messages WHERE session_id = ?`).pluck().get(sessionId) as number;
  }

  /** The newest `limit` messages stored after `afterIso`, oldest first (the stream's replay). */
  replay(viewer: ChatViewer, sessionId: string, afterIso: string, limit = STREAM_REPLAY_LIMIT): StreamMessage[] {
    const rows = this.#ctx.db
      .prepare(`SELECT * FROM (${MESSAGE_SELECT} WHERE m.session_id = ? AND m.created_at > ? ORDER BY m.id DESC LIMIT +?) ORDER BY id`)
      .all(sessionId, afterIso, limit) as MessageRow[];
    return rows.map((row) => ({ id: row.id, view: this.#messageView(viewer, row) }));
  }

  /** Messages with a row id above `afterId`, oldest first. */
  messagesAfter(viewer: ChatViewer, sessionId: string, afterId: number, limit = 500): StreamMessage[] {
    const rows = this.#ctx.db
      .prepare(`${MESSAGE_SELECT} WHERE m.session_id = ? AND m.id > ? ORDER BY m.id LIMIT +?`)
      .all(sessionId, afterId, limit) as MessageRow[];
    return rows.map((row) => ({ id: row.id, view: this.#messageView(viewer, row) }));
  }

  /** Every other participant's read watermark (chat_messages.id). */
  readWatermarks(sessionId: string, exceptAgentId: string): Map<string, number> {
    const rows = this.#ctx.db
      .prepare(`SELECT agent_id, last_read_id FROM chat_participants WHERE session_id = ? AND agent_id <> ?`)
      .all(sessionId, exceptAgentId) as { agent_id: string; last_read_id: number }[];
    return new Map(rows.map((row) => [row.agent_id, row.last_read_id]));
  }

  /** The read-receipt frame for a participant's current watermark. */
  readReceipt(sessionId: string, readerAgentId: string): ReadReceipt | null {
    const row = this.#ctx.db
      .prepare(
        `SELECT a.alias, cp.last_read_at, m.message_id FROM chat_participants cp
         JOIN agents a ON a.agent_id = cp.agent_id
         JOIN chat_messages m ON m.id = cp.last_read_id
         WHERE cp.session_id = ? AND cp.agent_id = ?`,
      )
      .get(sessionId, readerAgentId) as { alias: string; last_read_at: string | null; message_id: string } | undefined;
    if (!row) return null;
    return {
      type: 'read_receipt',
      session_id: sessionId,
      reader_alias: row.alias,
      up_to_message_id: row.message_id,
      extends_wait_seconds: HANG_ON_EXTENSION_SECONDS,
      timestamp: row.last_read_at ?? this.#ctx.clock.now().toISOString(),
    };
  }

  // ---------------------------------------------------------------- internals

  #session(sessionId: string): SessionRow | undefined {
    return this.#ctx.db.prepare(`SELECT * FROM chat_sessions WHERE session_id = ?`).get(sessionId) as SessionRow | undefined;
  }

  #participant(sessionId: string, agentId: string): ParticipantRow | undefined {
    return this.#ctx.db.prepare(`SELECT * FROM chat_participants WHERE session_id = ? AND agent_id = ?`).get(sessionId, agentId) as
      | ParticipantRow
      | undefined;
  }

  /** The session, when the caller takes part in it; otherwise it does not exist for them. */
  #memberSession(agentId: string, sessionId: string): SessionRow {
    const session = this.#participant(sessionId, agentId) ? this.#session(sessionId) : undefined;
    if (!session) throw notFound('Session not found');
    return session;
  }

  #participantIds(sessionId: string): string[] {
    return this.#ctx.db.prepare(`SELECT agent_id FROM chat_participants WHERE session_id = ?`).pluck().all(sessionId) as string[];
  }

  /**
   * The participants, the creator first, then its targets in order: identities of this node as they
   * are now (alias, address and keys), identities on other nodes as they last wrote.
   */
  #parties(sessionId: string): ChatParty[] {
    const rows = this.#ctx.db
      .prepare(
        `SELECT cp.agent_id AS participant_id, cp.address AS participant_address, cp.did AS participant_did, a.*
         FROM chat_participants cp LEFT JOIN agents a ON a.agent_id = cp.agent_id
         WHERE cp.session_id = ? ORDER BY cp.rowid`,
      )
      .all(sessionId) as (AgentRow & { participant_id: string; participant_address: string | null; participant_did: string })[];
    return rows.map((row) =>
      row.agent_id === null ? remoteParty(row.participant_address ?? '', row.participant_did) : localParty(this.#recipients.party(row)),
    );
  }

  #participantView(viewer: ChatViewer, party: ChatParty): ChatParticipant {
    return {
      agent_id: party.agent?.project_id === viewer.projectId ? party.id : null,
      alias: party.alias,
      address: party.address,
      did: party.stableId ?? party.didKey,
    };
  }

  #othersFields(others: ChatParty[]) {
    return {
      participants: others.map((p) => p.alias),
      participant_addresses: others.map((p) => p.address ?? p.alias),
      participant_dids: others.map((p) => p.stableId ?? p.didKey),
    };
  }

  /** Someone else is waiting: connected to the session and not gone from it (a left chat waits for no one). */
  #senderWaiting(sessionId: string, others: ChatParty[]): boolean {
    return others.some((p) => this.#waiting(sessionId, p.id));
  }

  #waiting(sessionId: string, agentId: string): boolean {
    return this.presence.isConnected(sessionId, agentId) && !this.#hasLeft(sessionId, agentId);
  }

  /** The two-party session of this pair (reused), or a new session of exactly these participants. */
  #sessionFor(sender: ChatParty, targets: ChatParty[], now: string): SessionRow {
    const { db } = this.#ctx;
    const parties = [sender, ...targets];
    const key = participantKey(parties);
    const existing = parties.length === 2 ? this.#pairSession(key) : undefined;
    if (existing) return existing;
    const sessionId = randomUUID();
    db.prepare(`INSERT INTO chat_sessions (session_id, created_by, participant_key, participant_count, created_at) VALUES (?, ?, ?, ?, ?)`).run(
      sessionId,
      sender.id,
      key,
      parties.length,
      now,
    );
    const join = db.prepare(`INSERT INTO chat_participants (session_id, agent_id, alias, address, did, joined_at) VALUES (?, ?, ?, ?, ?, ?)`);
    for (const party of parties) join.run(sessionId, party.id, party.alias, party.address, party.stableId ?? party.didKey, now);
    return this.#session(sessionId) as SessionRow;
  }

  #pairSession(key: string): SessionRow | undefined {
    return this.#ctx.db.prepare(`SELECT * FROM chat_sessions WHERE participant_key = ? AND participant_count = 2`).get(key) as SessionRow | undefined;
  }

  #assertReplyTo(sessionId: string, replyTo: string | undefined): void {
    if (replyTo === undefined) return;
    const found = this.#ctx.db.prepare(`SELECT 1 FROM chat_messages WHERE session_id = ? AND message_id = ?`).get(sessionId, replyTo);
    if (!found) throw notFound(`reply_to message ${replyTo} not found in this session`);
  }

  /**
   * The signed `to`: one target as addressed (one on another node by its address alone, as
   * federation signs it), or the sorted comma-joined targets with no to_did.
   */
  #addressee(targets: (Pick<Recipient, 'to' | 'didKey' | 'stableId'> & { agent?: AgentRow | null })[]): Pick<Recipient, 'to' | 'didKey' | 'stableId'> {
    const [only] = targets;
    if (targets.length === 1 && only !== undefined) return only.agent === null ? { to: only.to, didKey: '', stableId: null } : only;
    return {
      to: targets
        .map((t) => t.to)
        .sort()
        .join(','),
      didKey: '',
      stableId: null,
    };
  }

  /** `rejoining` is the node's note beside the message, outside the signed envelope (upstream has no such field). */
  #insert(
    session: SessionRow,
    sender: ChatParty,
    addressee: Pick<Recipient, 'to' | 'didKey' | 'stableId'>,
    now: string,
    content: ChatContent,
    rejoining = false,
  ): SignedMessage {
    const signed = signMessage(this.#ctx, asParty(sender), addressee, { type: 'chat', subject: '', ...content });
    this.#store({
      message_id: signed.message_id,
      session_id: session.session_id,
      from_agent_id: sender.id,
      from_alias: sender.alias,
      from_address: sender.address,
      from_did: signed.from_did,
      from_stable_id: signed.from_stable_id,
      to_text: addressee.to,
      to_did: addressee.didKey,
      ...content,
      sender_rejoining: rejoining,
      signature: signed.signature,
      signed_payload: signed.signed_payload,
      timestamp: signed.timestamp,
      created_at: now,
    });
    this.#updateWaitWindow(session, sender.id, content, now);
    return signed;
  }

  /**
   * One chat message row, signed here or arrived from another node (inside the write's
   * transaction). It becomes every participant's newest message (the list's order), and its
   * sender's membership follows it: a leaving message marks it gone, any other brings it back.
   */
  #store(
    row: Omit<MessageRow, 'id' | 'from_project_id' | 'sender_leaving' | 'sender_rejoining' | 'hang_on' | 'from_namespace_trust'> & {
      sender_leaving: boolean;
      sender_rejoining?: boolean;
      hang_on: boolean;
      from_namespace_trust?: 'verified' | 'unverified';
    },
  ): void {
    const { db } = this.#ctx;
    const { lastInsertRowid } = db
      .prepare(
        `INSERT INTO chat_messages (message_id, session_id, from_agent_id, from_alias, from_address, from_did, from_stable_id, to_text, to_did,
           body, reply_to, sender_leaving, sender_rejoining, hang_on, wait_seconds, signature, signed_payload, timestamp, created_at, from_namespace_trust)
         VALUES (@message_id, @session_id, @from_agent_id, @from_alias, @from_address, @from_did, @from_stable_id, @to_text, @to_did,
           @body, @reply_to, @sender_leaving, @sender_rejoining, @hang_on, @wait_seconds, @signature, @signed_payload, @timestamp, @created_at, @from_namespace_trust)`,
      )
      .run({
        ...row,
        sender_leaving: row.sender_leaving ? 1 : 0,
        sender_rejoining: row.sender_rejoining === true ? 1 : 0,
        hang_on: row.hang_on ? 1 : 0,
        from_namespace_trust: row.from_namespace_trust ?? null,
      });
    db.prepare(`UPDATE chat_participants SET last_message_id = ? WHERE session_id = ?`).run(lastInsertRowid, row.session_id);
    db.prepare(`UPDATE chat_participants SET left_at = ? WHERE session_id = ? AND agent_id = ?`).run(
      row.sender_leaving ? row.created_at : null,
      row.session_id,
      row.from_agent_id,
    );
  }

  /**
   * A send-and-wait opens (or restarts) the sender's wait window; its sender leaving, or sending
   * wait_seconds 0, closes it; a hang_on from someone else while it is open extends it by 300 s.
   */
  #updateWaitWindow(session: SessionRow, senderId: string, content: { wait_seconds: number | null; hang_on: boolean; sender_leaving: boolean }, now: string): void {
    const { db } = this.#ctx;
    const own = session.wait_started_by === senderId;
    if (content.sender_leaving || content.wait_seconds === 0) {
      if (own) {
        db.prepare(`UPDATE chat_sessions SET wait_seconds = NULL, wait_started_at = NULL, wait_started_by = NULL, hang_on_count = 0 WHERE session_id = ?`).run(
          session.session_id,
        );
      }
      return;
    }
    if (content.wait_seconds !== null) {
      db.prepare(`UPDATE chat_sessions SET wait_seconds = ?, wait_started_at = ?, wait_started_by = ?, hang_on_count = 0 WHERE session_id = ?`).run(
        content.wait_seconds,
        now,
        senderId,
        session.session_id,
      );
      return;
    }
    if (content.hang_on && !own && session.wait_started_by !== null) {
      const remaining = this.#timeRemaining(session, Date.parse(now));
      if (remaining !== null && remaining > 0) {
        db.prepare(`UPDATE chat_sessions SET hang_on_count = hang_on_count + 1 WHERE session_id = ?`).run(session.session_id);
      }
    }
  }

  /** Seconds left in the session's wait window (≥ 0), or null when none was opened. */
  #timeRemaining(session: SessionRow, nowMs: number): number | null {
    if (session.wait_seconds === null || session.wait_started_at === null) return null;
    const end = Date.parse(session.wait_started_at) + (session.wait_seconds + HANG_ON_EXTENSION_SECONDS * session.hang_on_count) * 1000;
    return Math.max(0, Math.ceil((end - nowMs) / 1000));
  }

  /** Whether the participant's latest message in the session said it was leaving (kept in left_at by #store). */
  #hasLeft(sessionId: string, agentId: string): boolean {
    return (this.#participant(sessionId, agentId)?.left_at ?? null) !== null;
  }

  /** The participant started the session or has spoken in it. */
  #hasEngaged(session: SessionRow, agentId: string): boolean {
    return session.created_by === agentId || this.#hasSpoken(session.session_id, agentId);
  }

  #hasSpoken(sessionId: string, agentId: string): boolean {
    return this.#ctx.db.prepare(`SELECT 1 FROM chat_messages WHERE session_id = ? AND from_agent_id = ? LIMIT 1`).get(sessionId, agentId) !== undefined;
  }

  /**
   * Per session of the caller, most recent activity first: the session row, its unread count and
   * its latest message. Walks the caller's (agent_id, last_message_id) index, so a page costs the
   * same with ten sessions or a hundred thousand: `before` (a row id) and `limit` page it, and
   * `pendingOnly` keeps the sessions that can be pending (something unread, or a wait window).
   */
  #summaries(
    agentId: string,
    options: { before?: number; limit?: number; pendingOnly?: boolean } = {},
  ): { session: SessionRow; unread_count: number; last: MessageRow | undefined; left_at: string | null }[] {
    const { db } = this.#ctx;
    const where = ['cp.agent_id = ?'];
    const params: (string | number)[] = [agentId];
    if (options.before !== undefined) {
      where.push('cp.last_message_id < ?');
      params.push(options.before);
    }
    if (options.pendingOnly === true) where.push('(cp.last_message_id > cp.last_read_id OR s.wait_started_by IS NOT NULL)');
    if (options.limit !== undefined) params.push(options.limit);
    const rows = db
      .prepare(
        `SELECT s.*, cp.last_message_id AS last_id, cp.left_at AS my_left_at,
           (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = s.session_id AND m.id > cp.last_read_id AND m.from_agent_id <> cp.agent_id) AS unread_count
         FROM chat_participants cp JOIN chat_sessions s ON s.session_id = cp.session_id
         WHERE ${where.join(' AND ')}
         ORDER BY cp.last_message_id DESC, cp.rowid DESC${options.limit === undefined ? '' : ' LIMIT +?'}`,
      )
      .all(...params) as (SessionRow & { unread_count: number; last_id: number; my_left_at: string | null })[];
    const lastMessage = db.prepare(`${MESSAGE_SELECT} WHERE m.id = ?`);
    return rows.map(({ unread_count, last_id, my_left_at, ...session }) => ({
      session,
      unread_count,
      last: last_id === 0 ? undefined : (lastMessage.get(last_id) as MessageRow | undefined),
      left_at: my_left_at,
    }));
  }

  /** Each participant's read position and membership, by participant id. */
  #memberships(sessionId: string): Map<string, { last_read_message_id: string | null; read_at: string | null; left_at: string | null }> {
    const rows = this.#ctx.db
      .prepare(
        `SELECT cp.agent_id, cp.last_read_at, cp.left_at, m.message_id AS last_read_message_id
         FROM chat_participants cp LEFT JOIN chat_messages m ON m.id = cp.last_read_id AND cp.last_read_id > 0
         WHERE cp.session_id = ?`,
      )
      .all(sessionId) as { agent_id: string; last_read_at: string | null; left_at: string | null; last_read_message_id: string | null }[];
    return new Map(
      rows.map((row) => [
        row.agent_id,
        { last_read_message_id: row.last_read_message_id, read_at: row.last_read_message_id === null ? null : row.last_read_at, left_at: row.left_at },
      ]),
    );
  }

  #lastMessageView(viewer: ChatViewer, row: MessageRow): ChatLastMessage {
    return {
      message_id: row.message_id,
      from_agent_id: row.from_project_id === viewer.projectId ? row.from_agent_id : null,
      from_alias: row.from_alias,
      from_address: row.from_address,
      preview: row.body.length > PREVIEW_CHARS ? row.body.slice(0, PREVIEW_CHARS) : row.body,
      created_at: row.created_at,
      sender_leaving: row.sender_leaving === 1,
      sender_rejoining: row.sender_rejoining === 1,
    };
  }

  #messageView(viewer: ChatViewer, row: MessageRow): ChatMessage {
    const hangOn = row.hang_on === 1;
    return {
      message_id: row.message_id,
      session_id: row.session_id,
      from_agent_id: row.from_project_id === viewer.projectId ? row.from_agent_id : null,
      from_alias: row.from_alias,
      from_address: row.from_address,
      from_did: row.from_did,
      from_stable_id: row.from_stable_id,
      to: row.to_text,
      to_did: row.to_did,
      body: row.body,
      timestamp: row.timestamp,
      created_at: row.created_at,
      sender_leaving: row.sender_leaving === 1,
      sender_rejoining: row.sender_rejoining === 1,
      hang_on: hangOn,
      extends_wait_seconds: hangOn ? HANG_ON_EXTENSION_SECONDS : 0,
      reply_to: row.reply_to,
      wait_seconds: row.wait_seconds,
      signature: row.signature,
      signed_payload: row.signed_payload,
      signature_status: signatureStatus(row),
      from_namespace_trust: senderNamespaceTrust(this.#namespaces, { ...row, remote: row.from_agent_id.startsWith(REMOTE_PREFIX) }),
    };
  }

  #publish(sessionId: string, agentIds: string[]): void {
    this.#ctx.bus.publish(sessionTopic(sessionId));
    for (const agentId of new Set(agentIds)) this.#ctx.bus.publish(identityTopic(agentId));
  }
}
