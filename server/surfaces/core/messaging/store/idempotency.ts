/**
 * The `message_sends` table: sends that named their own message_id, with a hash of what they said
 * and the answer they got (messaging/idempotency.ts decides what a repeat means).
 */
import type { Db } from '../../../../context.ts';

export type SendKind = 'mail' | 'chat-create' | 'chat-send';

export interface MessageSendRow {
  message_id: string;
  agent_id: string;
  kind: SendKind;
  content_sha256: string;
  /** The answer, as JSON. */
  answer: string;
  created_at: string;
}

export function findMessageSend(db: Db, messageId: string): MessageSendRow | undefined {
  return db.prepare(`SELECT * FROM message_sends WHERE message_id = ?`).get(messageId) as MessageSendRow | undefined;
}

export function insertMessageSend(db: Db, row: MessageSendRow): void {
  db.prepare(
    `INSERT INTO message_sends (message_id, agent_id, kind, content_sha256, answer, created_at)
     VALUES (@message_id, @agent_id, @kind, @content_sha256, @answer, @created_at)`,
  ).run(row);
}

/** Forgets answers recorded before `before` (ISO 8601), at most `limit` of them per call. */
export function pruneMessageSends(db: Db, before: string, limit: number): void {
  db.prepare(`DELETE FROM message_sends WHERE message_id IN (SELECT message_id FROM message_sends WHERE created_at < ? ORDER BY created_at LIMIT +?)`).run(
    before,
    limit,
  );
}
