/**
 * Migration 0020 on a database written before it: each participant's newest message and its
 * "left" mark are filled in from the messages already stored, so chats left before the upgrade
 * still show who left, and the session list keeps its order.
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseBefore, type DatabaseBefore } from '../../../../test/support/migrations.ts';

const VERSION = 20;

let before: DatabaseBefore;
let db: SQLite.Database;

beforeEach(() => {
  before = databaseBefore(VERSION);
  db = before.db;
});
afterEach(() => before.close());

// Only the chat tables matter here; foreign keys to identities stay off while the rows are made up.
function session(id: string, participants: string[]): void {
  db.prepare(
    `INSERT INTO chat_sessions (session_id, created_by, participant_key, participant_count, created_at) VALUES (?, ?, ?, ?, '2026-01-01T00:00:00.000Z')`,
  ).run(id, participants[0], [...participants].sort().join(','), participants.length);
  for (const agent of participants) {
    db.prepare(`INSERT INTO chat_participants (session_id, agent_id, alias, did, joined_at) VALUES (?, ?, ?, 'did:key:z', '2026-01-01T00:00:00.000Z')`).run(
      id,
      agent,
      agent,
    );
  }
}

let seq = 0;
function message(sessionId: string, from: string, leaving = false): number {
  seq += 1;
  const at = `2026-01-01T00:00:${String(seq).padStart(2, '0')}.000Z`;
  return Number(
    db
      .prepare(
        `INSERT INTO chat_messages (message_id, session_id, from_agent_id, from_alias, from_did, to_text, body, sender_leaving, signature, signed_payload, timestamp, created_at)
         VALUES (?, ?, ?, ?, 'did:key:z', 'x', 'body', ?, 's', '{}', ?, ?)`,
      )
      .run(`m${seq}`, sessionId, from, from, leaving ? 1 : 0, at, at).lastInsertRowid,
  );
}

const participant = (sessionId: string, agent: string) =>
  db.prepare(`SELECT left_at, last_message_id FROM chat_participants WHERE session_id = ? AND agent_id = ?`).get(sessionId, agent) as {
    left_at: string | null;
    last_message_id: number;
  };
const createdAt = (id: number) => db.prepare(`SELECT created_at FROM chat_messages WHERE id = ?`).pluck().get(id) as string;

describe(`migration ${VERSION}`, () => {
  it('fills in each participant’s newest message and whether its latest message left the chat', () => {
    db.pragma('foreign_keys = OFF');
    session('s1', ['a', 'b']);
    session('s2', ['a', 'c', 'remote:far.test/d']);
    session('s3', ['a', 'e']);
    message('s1', 'a');
    const bLeft = message('s1', 'b', true);
    const s1Last = message('s1', 'a');
    message('s2', 'c', true);
    message('s2', 'c'); // left, then wrote again: back in
    const dLeft = message('s2', 'remote:far.test/d', true);

    expect(before.upgrade().applied).toEqual([VERSION]);

    expect(participant('s1', 'a')).toEqual({ left_at: null, last_message_id: s1Last });
    expect(participant('s1', 'b')).toEqual({ left_at: createdAt(bLeft), last_message_id: s1Last });
    expect(participant('s2', 'c')).toEqual({ left_at: null, last_message_id: dLeft });
    expect(participant('s2', 'remote:far.test/d')).toEqual({ left_at: createdAt(dLeft), last_message_id: dLeft });
    // A session without messages (none is ever made so; still) sorts last.
    expect(participant('s3', 'a')).toEqual({ left_at: null, last_message_id: 0 });
    expect(db.prepare(`SELECT COUNT(*) FROM chat_messages WHERE sender_rejoining <> 0`).pluck().get()).toBe(0);
    // The list reads one identity's sessions newest first straight from the index.
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT session_id FROM chat_participants WHERE agent_id = ? ORDER BY last_message_id DESC, rowid DESC LIMIT 50`)
      .all('a') as { detail: string }[];
    expect(plan.map((row) => row.detail).join('\n')).toMatch(/USING (COVERING )?INDEX chat_participants_recent/);
    expect(plan.map((row) => row.detail).join('\n')).not.toMatch(/TEMP B-TREE/);
  });
});
