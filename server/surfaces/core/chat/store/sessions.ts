/**
 * The `chat_sessions` table: one row per session, with its participant key (two-party sessions
 * are reused through it) and its wait window.
 */
import type { Db } from '../../../../context.ts';
import type { WaitWindow } from '../domain/wait-window.ts';

export interface ChatSessionRow extends WaitWindow {
  session_id: string;
  /** The identity of this node that started it (for a session begun from another node, its local participant). */
  created_by: string;
  participant_key: string;
  participant_count: number;
  created_at: string;
}

export type NewChatSession = Pick<ChatSessionRow, 'session_id' | 'created_by' | 'participant_key' | 'participant_count' | 'created_at'>;

export function findChatSession(db: Db, sessionId: string): ChatSessionRow | undefined {
  return db.prepare(`SELECT * FROM chat_sessions WHERE session_id = ?`).get(sessionId) as ChatSessionRow | undefined;
}

/** The two-party session with this participant key, if there is one (there is at most one). */
export function findPairSession(db: Db, participantKey: string): ChatSessionRow | undefined {
  return db.prepare(`SELECT * FROM chat_sessions WHERE participant_key = ? AND participant_count = 2`).get(participantKey) as ChatSessionRow | undefined;
}

/** Stores a new session, without a wait window; returns its row. */
export function insertChatSession(db: Db, row: NewChatSession): ChatSessionRow {
  db.prepare(
    `INSERT INTO chat_sessions (session_id, created_by, participant_key, participant_count, created_at)
     VALUES (@session_id, @created_by, @participant_key, @participant_count, @created_at)`,
  ).run(row);
  return { ...row, wait_seconds: null, wait_started_at: null, wait_started_by: null, hang_on_count: 0 };
}

export function saveWaitWindow(db: Db, sessionId: string, window: WaitWindow): void {
  db.prepare(
    `UPDATE chat_sessions SET wait_seconds = @wait_seconds, wait_started_at = @wait_started_at, wait_started_by = @wait_started_by, hang_on_count = @hang_on_count
     WHERE session_id = @session_id`,
  ).run({
    session_id: sessionId,
    wait_seconds: window.wait_seconds,
    wait_started_at: window.wait_started_at,
    wait_started_by: window.wait_started_by,
    hang_on_count: window.hang_on_count,
  });
}
