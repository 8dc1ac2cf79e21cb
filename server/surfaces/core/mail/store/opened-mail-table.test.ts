/**
 * What the node opened of encrypted mail (mail_plaintext) after migration 0045: one row per
 * message, keyed by the message's row id, with a flag per party it reads the mail for. Rows kept
 * per reader before it are converted (and dropped when their message is gone). Rows are written as
 * that schema had them, in SQL: the stores write today's schema (opened-mail-in-row.test.ts).
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mailRow } from '../../../../../test/support/mail-rows.ts';
import { databaseBefore, type DatabaseBefore } from '../../../../../test/support/migrations.ts';
import { addIdentity } from '../../../../../test/support/store-database.ts';
import type { AgentRow } from '../../identities/store/agents.ts';
import type { NewMailRow } from './messages.ts';

const VERSION = 45;

let before: DatabaseBefore;
let db: SQLite.Database;
let ann: AgentRow;
let bob: AgentRow;
let carol: AgentRow;

beforeEach(() => {
  before = databaseBefore(VERSION, { foreignKeys: true });
  db = before.db;
  ann = addIdentity(db, { alias: 'ann' });
  bob = addIdentity(db, { alias: 'bob' });
  // Holds her own keys in the mail below: the node opens none of it for her.
  carol = addIdentity(db, { alias: 'carol' });
});
afterEach(() => before.close());

/** An encrypted mail's row as delivery stores one: the envelope, subject and body empty. */
function sealed(sender: AgentRow, recipient: AgentRow, messageId: string, fields: Partial<NewMailRow> = {}): void {
  insertRow({
    ...mailRow(sender, recipient, { message_id: messageId, subject: '', body: '' }),
    content_mode: 'encrypted_v2',
    encrypted_envelope: '{}',
    ...fields,
  });
}

function insertRow(row: NewMailRow): void {
  const columns = Object.keys(row);
  db.prepare(`INSERT INTO messages (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(row);
}

/** A row as the node kept one before 0045: per message and reader. */
function keptBefore(messageId: string, agentId: string, subject: string, body: string): void {
  db.prepare(`INSERT INTO mail_plaintext (message_id, agent_id, subject, body, signature, signed_payload) VALUES (?, ?, ?, ?, 'sig', 'payload')`).run(
    messageId,
    agentId,
    subject,
    body,
  );
}

/** What the table holds now, by message id. */
const keptNow = () =>
  db
    .prepare(
      `SELECT m.message_id, p.sender_reads, p.recipient_reads, p.subject, p.body FROM mail_plaintext p JOIN messages m ON m.id = p.message_rowid ORDER BY p.message_rowid`,
    )
    .all();

describe(`mail_plaintext after migration ${VERSION}`, () => {
  it('converts the rows kept per reader into one per message, with a flag per party, and drops those whose message is gone', () => {
    // Sealed between two identities whose keys the node holds: a row for each (the text is the recipient's when they differ).
    sealed(ann, bob, 'both');
    keptBefore('both', ann.agent_id, 'Pier', 'A walrus on the pier, as ann sealed it');
    keptBefore('both', bob.agent_id, 'Pier', 'A walrus on the pier');
    // Sealed to an identity holding its own keys: the sender's copy only.
    sealed(ann, carol, 'sender-only');
    keptBefore('sender-only', ann.agent_id, 'Deep', 'A narwhal, of all things');
    // Arrived from another node, opened for its recipient.
    sealed(ann, bob, 'recipient-only', { from_agent_id: null, from_address: 'ann@other.test', origin: 'remote', from_node: 'https://other.test' });
    keptBefore('recipient-only', bob.agent_id, 'Arms', 'An octopus with eight arms');
    // Between two identities holding their own keys: nothing opened.
    sealed(carol, carol, 'opened-for-none');
    // A plaintext mail keeps its text in its row.
    insertRow(mailRow(ann, bob, { message_id: 'plain', subject: 'Gulls', body: 'Only gulls today' }));
    // Its message no longer exists.
    keptBefore('gone', ann.agent_id, 'Gone', 'A message deleted since');

    expect(before.upgrade().applied).toEqual([VERSION]);

    expect(keptNow()).toEqual([
      { message_id: 'both', sender_reads: 1, recipient_reads: 1, subject: 'Pier', body: 'A walrus on the pier' },
      { message_id: 'sender-only', sender_reads: 1, recipient_reads: 0, subject: 'Deep', body: 'A narwhal, of all things' },
      { message_id: 'recipient-only', sender_reads: 0, recipient_reads: 1, subject: 'Arms', body: 'An octopus with eight arms' },
    ]);
    // Keyed by the message's row id alone: no index of its own to write beside the table.
    expect(db.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'mail_plaintext'`).pluck().get()).toBe(0);
  });
});
