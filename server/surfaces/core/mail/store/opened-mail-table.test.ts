/**
 * What the node opened of encrypted mail (mail_plaintext) after migration 0045: one row per
 * message, keyed by the message's row id, with a flag per party it reads the mail for. Rows kept
 * per reader before it are converted (and dropped when their message is gone); each read takes
 * the text for its own side only; a row goes with its message; and search finds the opened text
 * for exactly its readers.
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SearchQuery } from '../../../../../contract/core/search.ts';
import { mailRow } from '../../../../../test/support/mail-rows.ts';
import { databaseBefore, type DatabaseBefore } from '../../../../../test/support/migrations.ts';
import { addIdentity } from '../../../../../test/support/store-database.ts';
import { systemClock } from '../../../../clock.ts';
import { SearchIndexer } from '../../../../search/indexer.ts';
import { identityScope } from '../../../../search/scopes.ts';
import { SearchService } from '../../../../search/service.ts';
import type { AgentRow } from '../../identities/store/agents.ts';
import { inboxRows, insertMailRow, keepOpenedMail, readableMailBody, type NewMailRow } from './messages.ts';
import { localSentRows } from './sent.ts';

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
function sealed(sender: AgentRow, recipient: AgentRow, messageId: string, fields: Partial<NewMailRow> = {}): number {
  return insertMailRow(db, {
    ...mailRow(sender, recipient, { message_id: messageId, subject: '', body: '' }),
    content_mode: 'encrypted_v2',
    encrypted_envelope: '{}',
    ...fields,
  });
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

/** The mail an identity's own search finds for `q`, by message id (it finds nothing else here). */
const found = (search: SearchService, agent: AgentRow, q: string) =>
  search
    .search(identityScope(agent.agent_id), SearchQuery.parse({ q }))
    .results.map((hit) => (hit.kind === 'mail' ? hit.message_id : hit.kind))
    .sort();

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
    insertMailRow(db, mailRow(ann, bob, { message_id: 'plain', subject: 'Gulls', body: 'Only gulls today' }));
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

  it('gives each side its text only when the node reads the mail for that side', () => {
    sealed(ann, bob, 'both');
    keptBefore('both', ann.agent_id, 'Pier', 'A walrus on the pier');
    keptBefore('both', bob.agent_id, 'Pier', 'A walrus on the pier');
    sealed(ann, carol, 'sender-only');
    keptBefore('sender-only', ann.agent_id, 'Deep', 'A narwhal, of all things');
    sealed(carol, bob, 'recipient-only');
    keptBefore('recipient-only', bob.agent_id, 'Arms', 'An octopus with eight arms');
    before.upgrade();

    const inbox = (agent: AgentRow) => inboxRows(db, agent.agent_id, { folder: null, unreadOnly: false, limit: 10 }).map((row) => [row.message_id, row.body]);
    expect(inbox(bob)).toEqual([
      ['recipient-only', 'An octopus with eight arms'],
      ['both', 'A walrus on the pier'],
    ]);
    // Carol reads the envelope herself: her copy stays as stored.
    expect(inbox(carol)).toEqual([['sender-only', '']]);

    const sent = (agent: AgentRow) => localSentRows(db, agent.agent_id, null, 10).map((row) => [row.message_id, row.body, row.signature]);
    expect(sent(ann)).toEqual([
      ['sender-only', 'A narwhal, of all things', 'sig'],
      ['both', 'A walrus on the pier', 'sig'],
    ]);
    expect(sent(carol)).toEqual([['recipient-only', '', 'sig']]);

    const body = (agent: AgentRow, messageId: string) => readableMailBody(db, { agentId: agent.agent_id, messageId });
    expect(body(ann, 'sender-only')).toBe('A narwhal, of all things');
    expect(body(carol, 'sender-only')).toBe('');
    expect(body(bob, 'recipient-only')).toBe('An octopus with eight arms');
    expect(body(carol, 'recipient-only')).toBe('');
    expect(body(ann, 'both')).toBe('A walrus on the pier');
    expect(body(bob, 'both')).toBe('A walrus on the pier');
  });

  it('keeps one row per message: a repeat adds a reader and changes nothing else, a mail read for neither keeps none', () => {
    before.upgrade();
    const rowid = sealed(ann, bob, 'new');
    keepOpenedMail(
      db,
      rowid,
      { sender: true, recipient: false },
      { subject: 'Pier', body: 'A walrus on the pier', signature: 'sig', signed_payload: 'payload' },
    );
    keepOpenedMail(db, rowid, { sender: false, recipient: true }, { subject: 'Other', body: 'Other words', signature: '', signed_payload: '' });
    keepOpenedMail(db, rowid, { sender: true, recipient: false }, { subject: 'Again', body: 'Again', signature: '', signed_payload: '' });
    expect(db.prepare('SELECT * FROM mail_plaintext').all()).toEqual([
      { message_rowid: rowid, sender_reads: 1, recipient_reads: 1, subject: 'Pier', body: 'A walrus on the pier', signature: 'sig', signed_payload: 'payload' },
    ]);

    keepOpenedMail(db, sealed(carol, carol, 'neither'), { sender: false, recipient: false }, { subject: 'S', body: 'B', signature: '', signed_payload: '' });
    expect(db.prepare('SELECT count(*) FROM mail_plaintext').pluck().get()).toBe(1);
  });

  it('goes with its message', () => {
    sealed(ann, bob, 'before');
    keptBefore('before', bob.agent_id, 'Pier', 'A walrus on the pier');
    before.upgrade();
    const rowid = sealed(ann, bob, 'after');
    keepOpenedMail(db, rowid, { sender: true, recipient: true }, { subject: 'Deep', body: 'A narwhal', signature: '', signed_payload: '' });
    expect(db.prepare('SELECT count(*) FROM mail_plaintext').pluck().get()).toBe(2);

    db.prepare(`DELETE FROM messages WHERE message_id IN ('before', 'after')`).run();
    expect(db.prepare('SELECT count(*) FROM mail_plaintext').pluck().get()).toBe(0);
  });

  it('lets search find the opened text for exactly the identities it was opened for', () => {
    sealed(ann, bob, 'both');
    keptBefore('both', ann.agent_id, 'Pier', 'A walrus on the pier');
    keptBefore('both', bob.agent_id, 'Pier', 'A walrus on the pier');
    sealed(ann, carol, 'sender-only');
    keptBefore('sender-only', ann.agent_id, 'Deep', 'A narwhal, of all things');
    before.upgrade();
    // Made after it, through the store.
    const rowid = sealed(carol, bob, 'recipient-only');
    keepOpenedMail(db, rowid, { sender: false, recipient: true }, { subject: 'Arms', body: 'An octopus with eight arms', signature: '', signed_payload: '' });

    const search = new SearchService(db, systemClock);
    const expectFound = () => {
      expect(found(search, ann, 'walrus')).toEqual(['both']);
      expect(found(search, bob, 'walrus')).toEqual(['both']);
      expect(found(search, ann, 'narwhal')).toEqual(['sender-only']);
      expect(found(search, carol, 'narwhal')).toEqual([]);
      expect(found(search, bob, 'octopus')).toEqual(['recipient-only']);
      expect(found(search, carol, 'octopus')).toEqual([]);
      expect(found(search, ann, 'octopus')).toEqual([]);
    };
    // Noted and not yet indexed (read from the view as a search runs), then from the index itself.
    expectFound();
    new SearchIndexer(db).runToEnd();
    expectFound();
    const hit = search.search(identityScope(ann.agent_id), SearchQuery.parse({ q: 'narwhal' })).results[0];
    expect(hit).toMatchObject({ kind: 'mail', title: 'Deep', folder: 'sent' });
  });
});
