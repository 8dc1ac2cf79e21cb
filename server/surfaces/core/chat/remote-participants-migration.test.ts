/**
 * Migration 0022 on a database written before it: a participant or sender on another node, stored
 * as `remote:<address>` in the agent-id columns, becomes a null agent id beside its address in the
 * new column; local rows keep their agent ids, the participants their order, and the foreign keys
 * to agents hold again.
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseBefore, type DatabaseBefore } from '../../../../test/support/migrations.ts';

const VERSION = 22;
const AT = '2026-01-01T00:00:00.000Z';

let before: DatabaseBefore;
let db: SQLite.Database;

beforeEach(() => {
  before = databaseBefore(VERSION, { foreignKeys: true });
  db = before.db;
});
afterEach(() => before.close());

function agent(id: string): void {
  db.prepare(`INSERT OR IGNORE INTO projects (project_id, slug, name, created_at) VALUES ('p', 'p', 'P', ?)`).run(AT);
  db.prepare(
    `INSERT INTO agents (agent_id, project_id, alias, lifetime, key_id, did_key, created_at, updated_at) VALUES (?, 'p', ?, 'ephemeral', 'k', 'did:key:z', ?, ?)`,
  ).run(id, id, AT, AT);
}

/** A session as the code before 0022 wrote it: participants named by agent id or `remote:<address>`. */
function session(id: string, participants: string[]): void {
  db.prepare(`INSERT INTO chat_sessions (session_id, created_by, participant_key, participant_count, created_at) VALUES (?, ?, ?, ?, ?)`).run(
    id,
    participants[0],
    [...participants].sort().join(','),
    participants.length,
    AT,
  );
  for (const participant of participants) {
    db.prepare(`INSERT INTO chat_participants (session_id, agent_id, alias, address, did, joined_at) VALUES (?, ?, ?, ?, 'did:key:z', ?)`).run(
      id,
      participant,
      participant,
      participant.startsWith('remote:') ? participant.slice(7) : null,
      AT,
    );
  }
}

let seq = 0;
function message(sessionId: string, from: string, leaving = false): number {
  seq += 1;
  return Number(
    db
      .prepare(
        `INSERT INTO chat_messages (message_id, session_id, from_agent_id, from_alias, from_address, from_did, to_text, body, sender_leaving, signature, signed_payload, timestamp, created_at)
         VALUES (?, ?, ?, ?, ?, 'did:key:z', 'x', 'body', ?, 's', '{}', ?, ?)`,
      )
      .run(`m${seq}`, sessionId, from, from, from.startsWith('remote:') ? from.slice(7) : null, leaving ? 1 : 0, AT, AT).lastInsertRowid,
  );
}

const participants = (sessionId: string) =>
  db.prepare(`SELECT agent_id, remote_address, address, left_at FROM chat_participants WHERE session_id = ? ORDER BY rowid`).all(sessionId);
const senders = (sessionId: string) =>
  db.prepare(`SELECT id, from_agent_id, from_remote_address, from_address FROM chat_messages WHERE session_id = ? ORDER BY id`).all(sessionId);
const plan = (sql: string, ...params: unknown[]): string =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');

describe(`migration ${VERSION}`, () => {
  it('moves `remote:<address>` out of the agent-id columns into the address columns, keeping order, ids and membership', () => {
    agent('zed');
    agent('amy');
    // A remote participant that sorts before the local one, and local ids on both sides of it.
    session('pair', ['zed', 'remote:far.test/bo']);
    session('local', ['amy', 'zed']);
    const zedFirst = message('pair', 'zed');
    const boLeft = message('pair', 'remote:far.test/bo', true);
    const amy = message('local', 'amy');
    db.prepare(`UPDATE chat_participants SET left_at = ? WHERE agent_id = 'remote:far.test/bo'`).run(AT);

    expect(before.upgrade().applied).toEqual([VERSION]);

    expect(participants('pair')).toEqual([
      { agent_id: 'zed', remote_address: null, address: null, left_at: null },
      { agent_id: null, remote_address: 'far.test/bo', address: 'far.test/bo', left_at: AT },
    ]);
    expect(participants('local')).toEqual([
      { agent_id: 'amy', remote_address: null, address: null, left_at: null },
      { agent_id: 'zed', remote_address: null, address: null, left_at: null },
    ]);
    expect(senders('pair')).toEqual([
      { id: zedFirst, from_agent_id: 'zed', from_remote_address: null, from_address: null },
      { id: boLeft, from_agent_id: null, from_remote_address: 'far.test/bo', from_address: 'far.test/bo' },
    ]);
    expect(senders('local')).toEqual([{ id: amy, from_agent_id: 'amy', from_remote_address: null, from_address: null }]);
    // The session key is untouched: the pair's session is still found for these two.
    expect(db.prepare(`SELECT participant_key FROM chat_sessions WHERE session_id = 'pair'`).pluck().get()).toBe('remote:far.test/bo,zed');
  });

  it('holds every row to exactly one of agent id and remote address, and local ids to the agents table', () => {
    agent('amy');
    session('s', ['amy', 'remote:far.test/bo']);
    expect(before.upgrade().applied).toEqual([VERSION]);

    const participant = db.prepare(
      `INSERT INTO chat_participants (session_id, agent_id, remote_address, alias, did, joined_at) VALUES ('s', ?, ?, 'x', 'did:key:z', ?)`,
    );
    expect(() => participant.run('amy', 'far.test/cy', AT)).toThrow(/CHECK constraint/);
    expect(() => participant.run(null, null, AT)).toThrow(/CHECK constraint/);
    expect(() => participant.run('remote:far.test/cy', null, AT)).toThrow(/FOREIGN KEY constraint/);
    expect(() => participant.run(null, 'far.test/bo', AT)).toThrow(/UNIQUE constraint/);

    const sent = db.prepare(
      `INSERT INTO chat_messages (message_id, session_id, from_agent_id, from_remote_address, from_alias, from_did, to_text, body, signature, signed_payload, timestamp, created_at)
       VALUES (?, 's', ?, ?, 'x', 'did:key:z', 'x', 'b', 's', '{}', ?, ?)`,
    );
    expect(() => sent.run('both', 'amy', 'far.test/bo', AT, AT)).toThrow(/CHECK constraint/);
    expect(() => sent.run('neither', null, null, AT, AT)).toThrow(/CHECK constraint/);
    expect(() => sent.run('stranger', 'nobody', null, AT, AT)).toThrow(/FOREIGN KEY constraint/);
  });

  it('keeps the indexes the reads walk', () => {
    expect(before.upgrade().applied).toEqual([VERSION]);
    // One identity's sessions, newest first, straight from the index.
    const list = plan(`SELECT session_id FROM chat_participants WHERE agent_id = ? ORDER BY last_message_id DESC, rowid DESC LIMIT 50`, 'a');
    expect(list).toMatch(/USING (COVERING )?INDEX chat_participants_recent/);
    expect(list).not.toMatch(/TEMP B-TREE/);
    // A participant, by agent id or by remote address.
    expect(plan(`SELECT * FROM chat_participants WHERE session_id = ? AND agent_id = ?`, 's', 'a')).toMatch(/USING INDEX sqlite_autoindex_chat_participants_1/);
    expect(plan(`SELECT * FROM chat_participants WHERE session_id = ? AND remote_address = ?`, 's', 'x/y')).toMatch(
      /USING INDEX sqlite_autoindex_chat_participants_2/,
    );
    expect(plan(`SELECT id FROM chat_messages WHERE session_id = ? AND id > ? ORDER BY id`, 's', 0)).toMatch(/USING (COVERING )?INDEX chat_messages_session/);
  });
});
