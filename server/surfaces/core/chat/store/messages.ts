/**
 * The `chat_messages` table: every chat message this node holds, signed here or arrived from
 * another node. Its row id orders everything: history, streams, read watermarks and cursors.
 * And `chat_plaintext`: what the node opened of an end-to-end encrypted message for one of its
 * participants whose keys it holds, joined only into that participant's own reads (`reader`).
 */
import type { ChatLastMessage, ChatMessage } from '../../../../../contract/core/chat.ts';
import type { ChatWakeFrame } from '../../../../../contract/core/events.ts';
import type { Db } from '../../../../context.ts';
import { preview, signedField } from '../domain/messages.ts';
import type { ChatViewer } from '../domain/participants.ts';
import { HANG_ON_EXTENSION_SECONDS } from '../domain/wait-window.ts';

export interface ChatMessageRow {
  id: number;
  message_id: string;
  session_id: string;
  /** The sending identity of this node; null for a message from another node. */
  from_agent_id: string | null;
  /** The sender's address when it is on another node; null for a sender of this node. */
  from_remote_address: string | null;
  from_alias: string;
  from_address: string | null;
  from_did: string;
  from_stable_id: string | null;
  /** The signed `to`. */
  to_text: string;
  to_did: string;
  body: string;
  reply_to: string | null;
  sender_leaving: number;
  /** Ours: the message took its sender back into a chat it had left (not part of the signed envelope). */
  sender_rejoining: number;
  hang_on: number;
  wait_seconds: number | null;
  signature: string;
  signed_payload: string;
  timestamp: string;
  created_at: string;
  /** For a message from another node: whether its sender's namespace was found DNS-verified. */
  from_namespace_trust: 'verified' | 'unverified' | null;
  /** `encrypted_v2`: the row holds the envelope and the body is empty (a reader's plaintext is in chat_plaintext). */
  content_mode: 'legacy_plaintext_v1' | 'encrypted_v2';
  /** The normalised envelope, as JSON, for `encrypted_v2`. */
  encrypted_envelope: string | null;
}

/** A message with its sender's project (null for a sender on another node): agent ids show within the reader's project only. */
export interface ChatMessageWithProject extends ChatMessageRow {
  from_project_id: string | null;
}

export interface NewChatMessage
  extends
    Omit<ChatMessageRow, 'id' | 'sender_leaving' | 'sender_rejoining' | 'hang_on' | 'content_mode' | 'encrypted_envelope'>,
    Partial<Pick<ChatMessageRow, 'content_mode' | 'encrypted_envelope'>> {
  sender_leaving: boolean;
  sender_rejoining: boolean;
  hang_on: boolean;
}

/** What a participant whose keys the node holds reads of an encrypted message: its text, and the sender's plaintext signature when the node sealed it. */
export interface OpenedChat {
  body: string;
  signature: string;
  signed_payload: string;
}

/**
 * What the reader is told beside a message, worked out at read time: the node's verdicts on its
 * signature and its sender's namespace, whether the reader's contacts name the sender, upstream's
 * announcements for its key, and its encryption as this reader gets it (with the body and
 * signature that go with that).
 */
export type MessageVerdicts = Pick<
  ChatMessage,
  | 'signature_status'
  | 'from_namespace_trust'
  | 'is_contact'
  | 'rotation_announcement'
  | 'replacement_announcement'
  | 'end_to_end'
  | 'content_mode'
  | 'message_version'
  | 'encrypted_envelope'
  | 'body'
  | 'signature'
>;

/** Upstream's session summary beside a `chat_message` frame (reads/wake.ts adds it). */
type SessionSummaryFields = 'participants' | 'last_message' | 'last_from' | 'last_activity' | 'unread_count' | 'wake_mode';

/** One unread chat message with its row id (the stream's cursor): the message's own part of a `chat_message` frame. */
export type ChatWakeMessage = Omit<ChatWakeFrame, 'type' | SessionSummaryFields> & { id: number };

/** One unread chat message for the identity event stream (the `chat_message` frame) with its row id, the stream's cursor. */
export type ChatWakeItem = Omit<ChatWakeFrame, 'type'> & { id: number };

/**
 * Rows as one reader reads them, its agent id the statement's first parameter (null: as stored):
 * an encrypted message's body (and the sender's plaintext signature, when the node sealed it) is
 * what the node opened for the reader, and stays as stored (empty) for anyone else. Its columns
 * are named one by one: a subquery over `m.*` beside the reader's `body` would rename one of them.
 */
const WITH_PROJECT = `SELECT m.id, m.message_id, m.session_id, m.from_agent_id, m.from_remote_address, m.from_alias, m.from_address, m.from_did,
     m.from_stable_id, m.to_text, m.to_did, m.reply_to, m.sender_leaving, m.sender_rejoining, m.hang_on, m.wait_seconds, m.timestamp,
     m.created_at, m.from_namespace_trust, m.content_mode, m.encrypted_envelope, a.project_id AS from_project_id, COALESCE(p.body, m.body) AS body,
     CASE WHEN p.signed_payload <> '' THEN p.signature ELSE m.signature END AS signature,
     CASE WHEN p.signed_payload <> '' THEN p.signed_payload ELSE m.signed_payload END AS signed_payload
   FROM chat_messages m LEFT JOIN agents a ON a.agent_id = m.from_agent_id
   LEFT JOIN chat_plaintext p ON p.message_id = m.message_id AND p.agent_id = ?`;

/** Stores a message; returns its row id. */
export function insertChatMessage(db: Db, row: NewChatMessage): number {
  const { lastInsertRowid } = db
    .prepare(
      `INSERT INTO chat_messages (message_id, session_id, from_agent_id, from_remote_address, from_alias, from_address, from_did, from_stable_id,
         to_text, to_did, body, reply_to, sender_leaving, sender_rejoining, hang_on, wait_seconds, signature, signed_payload, timestamp,
         created_at, from_namespace_trust, content_mode, encrypted_envelope)
       VALUES (@message_id, @session_id, @from_agent_id, @from_remote_address, @from_alias, @from_address, @from_did, @from_stable_id,
         @to_text, @to_did, @body, @reply_to, @sender_leaving, @sender_rejoining, @hang_on, @wait_seconds, @signature, @signed_payload, @timestamp,
         @created_at, @from_namespace_trust, @content_mode, @encrypted_envelope)`,
    )
    .run({
      ...row,
      sender_leaving: Number(row.sender_leaving),
      sender_rejoining: Number(row.sender_rejoining),
      hang_on: Number(row.hang_on),
      content_mode: row.content_mode ?? 'legacy_plaintext_v1',
      encrypted_envelope: row.encrypted_envelope ?? null,
    });
  return Number(lastInsertRowid);
}

/** Keeps what the node opened of an encrypted message for `agentId` (a repeat changes nothing). */
export function keepOpenedChat(db: Db, messageId: string, agentId: string, opened: OpenedChat): void {
  db.prepare(
    `INSERT OR IGNORE INTO chat_plaintext (message_id, agent_id, body, signature, signed_payload)
     VALUES (@messageId, @agentId, @body, @signature, @signed_payload)`,
  ).run({ messageId, agentId, ...opened });
}

/** The key that signed the message stored under this id, if one is. */
export function messageSignerDid(db: Db, messageId: string): string | undefined {
  return db.prepare(`SELECT from_did FROM chat_messages WHERE message_id = ?`).pluck().get(messageId) as string | undefined;
}

/** The session of a message, wherever it is. */
export function messageSessionId(db: Db, messageId: string): string | undefined {
  return db.prepare(`SELECT session_id FROM chat_messages WHERE message_id = ?`).pluck().get(messageId) as string | undefined;
}

/** The row id of a message, wherever it is. */
export function messageRowId(db: Db, messageId: string): number | undefined {
  return db.prepare(`SELECT id FROM chat_messages WHERE message_id = ?`).pluck().get(messageId) as number | undefined;
}

/** The row id of a message of this session. */
export function sessionMessageRowId(db: Db, sessionId: string, messageId: string): number | undefined {
  return db.prepare(`SELECT id FROM chat_messages WHERE session_id = ? AND message_id = ?`).pluck().get(sessionId, messageId) as number | undefined;
}

/** Whether the identity has written in the session. */
export function hasSpoken(db: Db, sessionId: string, agentId: string): boolean {
  return db.prepare(`SELECT 1 FROM chat_messages WHERE session_id = ? AND from_agent_id = ? LIMIT 1`).get(sessionId, agentId) !== undefined;
}

/** How many messages others wrote in the session with a row id in (afterId, upToId]. */
export function countFromOthers(db: Db, sessionId: string, afterId: number, upToId: number, agentId: string): number {
  return db
    .prepare(`SELECT COUNT(*) FROM chat_messages WHERE session_id = ? AND id > ? AND id <= ? AND from_agent_id IS NOT ?`)
    .pluck()
    .get(sessionId, afterId, upToId, agentId) as number;
}

/** The highest row id (0 when there are none). */
export function lastChatMessageRowId(db: Db): number {
  return db.prepare(`SELECT COALESCE(MAX(id), 0) FROM chat_messages`).pluck().get() as number;
}

/** The highest row id in the session (0 when it is empty). */
export function lastSessionMessageRowId(db: Db, sessionId: string): number {
  return db.prepare(`SELECT COALESCE(MAX(id), 0) FROM chat_messages WHERE session_id = ?`).pluck().get(sessionId) as number;
}

/** The message with row id `id`, as `reader` reads it (as stored without one). */
export function findChatMessage(db: Db, id: number, reader: string | null = null): ChatMessageWithProject | undefined {
  return db.prepare(`${WITH_PROJECT} WHERE m.id = ?`).get(reader, id) as ChatMessageWithProject | undefined;
}

/**
 * The session's newest `limit` messages, oldest first; `unreadBy` keeps those others wrote after
 * the reader's watermark, `messageId` the one message.
 */
export function newestSessionMessages(
  db: Db,
  sessionId: string,
  filter: { limit: number; unreadBy?: { agentId: string; lastReadId: number }; messageId?: string; reader?: string },
): ChatMessageWithProject[] {
  const where = ['m.session_id = ?'];
  const params: (string | number | null)[] = [filter.reader ?? null, sessionId];
  if (filter.unreadBy !== undefined) {
    where.push('m.id > ?', 'm.from_agent_id IS NOT ?');
    params.push(filter.unreadBy.lastReadId, filter.unreadBy.agentId);
  }
  if (filter.messageId !== undefined) {
    where.push('m.message_id = ?');
    params.push(filter.messageId);
  }
  return db
    .prepare(`SELECT * FROM (${WITH_PROJECT} WHERE ${where.join(' AND ')} ORDER BY m.id DESC LIMIT +?) ORDER BY id`)
    .all(...params, filter.limit) as ChatMessageWithProject[];
}

/** The newest `limit` messages stored after `afterIso` (ISO 8601 UTC), oldest first, as `reader` reads them. */
export function messagesStoredAfter(db: Db, sessionId: string, afterIso: string, limit: number, reader: string | null = null): ChatMessageWithProject[] {
  return db
    .prepare(`SELECT * FROM (${WITH_PROJECT} WHERE m.session_id = ? AND m.created_at > ? ORDER BY m.id DESC LIMIT +?) ORDER BY id`)
    .all(reader, sessionId, afterIso, limit) as ChatMessageWithProject[];
}

/** Up to `limit` messages of the session with a row id above `afterId`, oldest first, as `reader` reads them. */
export function sessionMessagesAfter(db: Db, sessionId: string, afterId: number, limit: number, reader: string | null = null): ChatMessageWithProject[] {
  return db
    .prepare(`${WITH_PROJECT} WHERE m.session_id = ? AND m.id > ? ORDER BY m.id LIMIT +?`)
    .all(reader, sessionId, afterId, limit) as ChatMessageWithProject[];
}

/** Up to `limit` messages others wrote to `agentId` that it has not read, with a row id above `afterId`, oldest first, as it reads them. */
export function unreadMessagesOf(db: Db, agentId: string, afterId: number, limit: number): ChatMessageRow[] {
  return db
    .prepare(
      `SELECT m.*, COALESCE(p.body, m.body) AS body FROM chat_participants cp JOIN chat_messages m ON m.session_id = cp.session_id
       LEFT JOIN chat_plaintext p ON p.message_id = m.message_id AND p.agent_id = cp.agent_id
       WHERE cp.agent_id = ? AND m.id > cp.last_read_id AND m.id > ? AND m.from_agent_id IS NOT cp.agent_id
       ORDER BY m.id LIMIT +?`,
    )
    .all(agentId, afterId, limit) as ChatMessageRow[];
}

/**
 * The messages stored after row `afterId` (up to `limit` of them), once per participant of this
 * node other than the sender: as stored, so never an encrypted message's plaintext (the node-wide
 * wake feed is no participant's read).
 */
export function messagesPostedSince(db: Db, afterId: number, limit: number): (ChatMessageRow & { to_agent_id: string })[] {
  return db
    .prepare(
      `SELECT m.*, cp.agent_id AS to_agent_id FROM chat_messages m
       JOIN chat_participants cp ON cp.session_id = m.session_id AND cp.agent_id IS NOT NULL AND cp.agent_id IS NOT m.from_agent_id
       WHERE m.id IN (SELECT id FROM chat_messages WHERE id > ? ORDER BY id LIMIT +?) ORDER BY m.id`,
    )
    .all(afterId, limit) as (ChatMessageRow & { to_agent_id: string })[];
}

/** The row id of a message in one of the identity's sessions: where a page of its session list ends. */
export function messageRowIdInSessionsOf(db: Db, agentId: string, messageId: string): number | undefined {
  return db
    .prepare(`SELECT m.id FROM chat_messages m JOIN chat_participants cp ON cp.session_id = m.session_id AND cp.agent_id = ? WHERE m.message_id = ?`)
    .pluck()
    .get(agentId, messageId) as number | undefined;
}

/** An identity of the reader's project is shown by agent id; anyone else by alias, address and key only. */
const senderAgentId = (row: ChatMessageWithProject, viewer: ChatViewer): string | null => (row.from_project_id === viewer.projectId ? row.from_agent_id : null);

export function toChatMessage(row: ChatMessageWithProject, viewer: ChatViewer, verdicts: MessageVerdicts): ChatMessage {
  const hangOn = row.hang_on === 1;
  return {
    message_id: row.message_id,
    session_id: row.session_id,
    from_agent_id: senderAgentId(row, viewer),
    from_alias: row.from_alias,
    from_address: row.from_address,
    from_did: row.from_did,
    from_stable_id: row.from_stable_id,
    from_agent: row.from_alias,
    to: row.to_text,
    to_address: row.to_text,
    to_did: row.to_did,
    to_stable_id: signedField(row.signed_payload, 'to_stable_id'),
    timestamp: row.timestamp,
    created_at: row.created_at,
    sender_leaving: row.sender_leaving === 1,
    sender_rejoining: row.sender_rejoining === 1,
    hang_on: hangOn,
    extends_wait_seconds: hangOn ? HANG_ON_EXTENSION_SECONDS : 0,
    reply_to: row.reply_to,
    wait_seconds: row.wait_seconds,
    signed_payload: row.signed_payload,
    signing_key_id: row.signature === '' ? null : row.from_did,
    ...verdicts,
  };
}

export function toLastMessage(row: ChatMessageWithProject, viewer: ChatViewer): ChatLastMessage {
  return {
    message_id: row.message_id,
    from_agent_id: senderAgentId(row, viewer),
    from_alias: row.from_alias,
    from_address: row.from_address,
    // The body as the reader reads it: empty for an envelope the reader opens itself.
    preview: preview(row.body),
    end_to_end: row.content_mode === 'encrypted_v2',
    created_at: row.created_at,
    sender_leaving: row.sender_leaving === 1,
    sender_rejoining: row.sender_rejoining === 1,
  };
}

/** `senderWaiting`: its sender has the session's stream open and has not left. */
export function toWakeItem(row: ChatMessageRow, senderWaiting: boolean): ChatWakeMessage {
  return {
    id: row.id,
    message_id: row.message_id,
    session_id: row.session_id,
    from_alias: row.from_alias,
    from_address: row.from_address,
    from_did: row.from_did,
    from_stable_id: row.from_stable_id,
    body: row.body,
    preview: preview(row.body),
    created_at: row.created_at,
    sender_waiting: senderWaiting,
  };
}
