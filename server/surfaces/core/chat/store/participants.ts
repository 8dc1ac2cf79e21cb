/**
 * The `chat_participants` table: who takes part in each session, with each participant's read
 * watermark, whether it left, and the session's newest message (its session list's order). A
 * participant is an identity of this node (`agent_id`) or one on another node (`remote_address`).
 */
import type { Db } from '../../../../context.ts';
import type { AgentRow } from '../../identities/store/agents.ts';
import type { ChatSessionRow } from './sessions.ts';

export interface ChatParticipantRow {
  session_id: string;
  /** An identity of this node; null for one on another node. */
  agent_id: string | null;
  /** The address of an identity on another node; null for one of this node. */
  remote_address: string | null;
  /** Who the participant was when it joined. */
  alias: string;
  address: string | null;
  did: string;
  /** Read watermark: the chat_messages.id up to which it has read; only grows. */
  last_read_id: number;
  last_read_at: string | null;
  joined_at: string;
  /** When its latest message said it was leaving; null while it takes part. */
  left_at: string | null;
  /** The session's newest chat_messages.id. */
  last_message_id: number;
}

/** Which participant: exactly one of the two is set. */
export type ParticipantRef = Pick<ChatParticipantRow, 'agent_id' | 'remote_address'>;

export type NewChatParticipant = Pick<ChatParticipantRow, 'session_id' | 'agent_id' | 'remote_address' | 'alias' | 'address' | 'did' | 'joined_at'>;

/** A participant as its session lists it: an identity of this node as it is now, or one elsewhere as it last wrote. */
export type SessionMember = { agent: AgentRow } | { agent: null; address: string; did: string };

/** Each participant's read position (as a message id) and membership. */
export interface Membership extends ParticipantRef {
  last_read_message_id: string | null;
  last_read_at: string | null;
  left_at: string | null;
}

export interface SessionListOptions {
  /** Only sessions whose newest message row id is below this. */
  before?: number;
  limit?: number;
  pendingOnly?: boolean;
  /** Only this session. */
  sessionId?: string;
}

/** A session in one identity's list: the session, its unread count, its newest message row id and whether the identity left. */
export interface SessionSummaryRow extends ChatSessionRow {
  unread_count: number;
  last_id: number;
  my_left_at: string | null;
}

export function findParticipant(db: Db, sessionId: string, agentId: string): ChatParticipantRow | undefined {
  return db.prepare(`SELECT * FROM chat_participants WHERE session_id = ? AND agent_id = ?`).get(sessionId, agentId) as ChatParticipantRow | undefined;
}

export function insertParticipant(db: Db, row: NewChatParticipant): void {
  db.prepare(
    `INSERT INTO chat_participants (session_id, agent_id, remote_address, alias, address, did, joined_at)
     VALUES (@session_id, @agent_id, @remote_address, @alias, @address, @did, @joined_at)`,
  ).run(row);
}

/** A participant joined to its identity row, whose columns are all null for one on another node. */
type MemberRow = (AgentRow | Record<keyof AgentRow, null>) & { remote_address: string | null; participant_did: string };

/** The session's participants in the order they joined; those of this node with their identity row. */
export function sessionMembers(db: Db, sessionId: string): SessionMember[] {
  const rows = db
    .prepare(
      `SELECT cp.remote_address, cp.did AS participant_did, a.*
       FROM chat_participants cp LEFT JOIN agents a ON a.agent_id = cp.agent_id
       WHERE cp.session_id = ? ORDER BY cp.rowid`,
    )
    .all(sessionId) as MemberRow[];
  return rows.map(toSessionMember);
}

function toSessionMember({ remote_address, participant_did, ...agent }: MemberRow): SessionMember {
  return remote_address === null ? { agent: agent as AgentRow } : { agent: null, address: remote_address, did: participant_did };
}

/** The agent ids of the session's participants of this node. */
export function localParticipantIds(db: Db, sessionId: string): string[] {
  return db.prepare(`SELECT agent_id FROM chat_participants WHERE session_id = ? AND agent_id IS NOT NULL`).pluck().all(sessionId) as string[];
}

/** How a participant on another node now calls itself and signs (it may have changed since it joined). */
export function updateRemoteParticipant(db: Db, sessionId: string, remoteAddress: string, seen: { alias: string; did: string }): void {
  db.prepare(`UPDATE chat_participants SET alias = ?, did = ? WHERE session_id = ? AND remote_address = ?`).run(seen.alias, seen.did, sessionId, remoteAddress);
}

/** Every participant's copy of the session's newest message row id. */
export function setLastMessage(db: Db, sessionId: string, messageRowId: number): void {
  db.prepare(`UPDATE chat_participants SET last_message_id = ? WHERE session_id = ?`).run(messageRowId, sessionId);
}

/** Marks the participant gone since `leftAt`, or back (null). */
export function setLeftAt(db: Db, sessionId: string, who: ParticipantRef, leftAt: string | null): void {
  db.prepare(`UPDATE chat_participants SET left_at = ? WHERE session_id = ? AND (agent_id = ? OR remote_address = ?)`).run(
    leftAt,
    sessionId,
    who.agent_id,
    who.remote_address,
  );
}

export function setReadWatermark(db: Db, sessionId: string, agentId: string, lastReadId: number, readAt: string): void {
  db.prepare(`UPDATE chat_participants SET last_read_id = ?, last_read_at = ? WHERE session_id = ? AND agent_id = ?`).run(
    lastReadId,
    readAt,
    sessionId,
    agentId,
  );
}

export function sessionMemberships(db: Db, sessionId: string): Membership[] {
  return db
    .prepare(
      `SELECT cp.agent_id, cp.remote_address, cp.last_read_at, cp.left_at, m.message_id AS last_read_message_id
       FROM chat_participants cp LEFT JOIN chat_messages m ON m.id = cp.last_read_id AND cp.last_read_id > 0
       WHERE cp.session_id = ?`,
    )
    .all(sessionId) as Membership[];
}

/** Every other participant of this node's read watermark (chat_messages.id), by agent id. */
export function readWatermarks(db: Db, sessionId: string, exceptAgentId: string): Map<string, number> {
  const rows = db.prepare(`SELECT agent_id, last_read_id FROM chat_participants WHERE session_id = ? AND agent_id <> ?`).all(sessionId, exceptAgentId) as {
    agent_id: string;
    last_read_id: number;
  }[];
  return new Map(rows.map((row) => [row.agent_id, row.last_read_id]));
}

/** Who read how far: the reader's alias, the message its watermark is at, and when; none before it reads. */
export function readPosition(db: Db, sessionId: string, agentId: string): { alias: string; last_read_at: string | null; message_id: string } | undefined {
  return db
    .prepare(
      `SELECT a.alias, cp.last_read_at, m.message_id FROM chat_participants cp
       JOIN agents a ON a.agent_id = cp.agent_id
       JOIN chat_messages m ON m.id = cp.last_read_id
       WHERE cp.session_id = ? AND cp.agent_id = ?`,
    )
    .get(sessionId, agentId) as { alias: string; last_read_at: string | null; message_id: string } | undefined;
}

/**
 * One identity's sessions, most recent activity first, with each one's unread count (others'
 * messages after its watermark). Walks the (agent_id, last_message_id) index, so a page costs the
 * same with ten sessions or a hundred thousand: `before` (a row id) and `limit` page it, and
 * `pendingOnly` keeps the sessions that can be pending (something unread, or a wait window).
 */
export function sessionSummaries(db: Db, agentId: string, options: SessionListOptions = {}): SessionSummaryRow[] {
  const where = ['cp.agent_id = ?'];
  const params: (string | number)[] = [agentId];
  if (options.before !== undefined) {
    where.push('cp.last_message_id < ?');
    params.push(options.before);
  }
  if (options.pendingOnly === true) where.push('(cp.last_message_id > cp.last_read_id OR s.wait_started_by IS NOT NULL)');
  if (options.sessionId !== undefined) {
    where.push('cp.session_id = ?');
    params.push(options.sessionId);
  }
  if (options.limit !== undefined) params.push(options.limit);
  return db
    .prepare(
      `SELECT s.*, cp.last_message_id AS last_id, cp.left_at AS my_left_at,
         (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = s.session_id AND m.id > cp.last_read_id AND m.from_agent_id IS NOT cp.agent_id) AS unread_count
       FROM chat_participants cp JOIN chat_sessions s ON s.session_id = cp.session_id
       WHERE ${where.join(' AND ')}
       ORDER BY cp.last_message_id DESC, cp.rowid DESC${options.limit === undefined ? '' : ' LIMIT +?'}`,
    )
    .all(...params) as SessionSummaryRow[];
}
