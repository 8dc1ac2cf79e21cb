/**
 * What the node opened of encrypted mail, in the mail's own row after migration 0049: the text kept
 * per message before it (mail_plaintext) moves into the row's opened columns with a flag per party
 * it reads the mail for; each read takes the text for its own side only; reads of the row as stored
 * (the node-wide wake feed) never carry it; and search finds it for exactly its readers.
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
import { inboxRows, insertMailRow, mailStoredSince, readableMailBody, type NewMailRow, type OpenedMailReaders } from './messages.ts';
import { localSentRows } from './sent.ts';

const VERSION = 49;

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

const BOTH = { sender: true, recipient: true };
const SENDER = { sender: true, recipient: false };
const RECIPIENT = { sender: false, recipient: true };
const NEITHER = { sender: false, recipient: false };

/** An encrypted mail's row as the schema before 0049 had it (in SQL), with its mail_plaintext row when the node read it for anyone. */
function sealedBefore(sender: AgentRow, recipient: AgentRow, messageId: string, readers: OpenedMailReaders, subject: string, body: string): void {
  const row: NewMailRow = {
    ...mailRow(sender, recipient, { message_id: messageId, subject: '', body: '' }),
    content_mode: 'encrypted_v2',
    encrypted_envelope: '{}',
  };
  const columns = Object.keys(row);
  const { lastInsertRowid } = db.prepare(`INSERT INTO messages (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(row);
  if (!readers.sender && !readers.recipient) return;
  db.prepare(
    `INSERT INTO mail_plaintext (message_rowid, sender_reads, recipient_reads, subject, body, signature, signed_payload) VALUES (?, ?, ?, ?, ?, 'opened-sig', 'opened-payload')`,
  ).run(lastInsertRowid, readers.sender ? 1 : 0, readers.recipient ? 1 : 0, subject, body);
}

/** An encrypted mail as delivery stores one now: the envelope, subject and body empty, the opened text in the row for its readers. */
function sealed(sender: AgentRow, recipient: AgentRow, messageId: string, readers: OpenedMailReaders, subject: string, body: string): number {
  return insertMailRow(db, {
    ...mailRow(sender, recipient, { message_id: messageId, subject: '', body: '' }),
    content_mode: 'encrypted_v2',
    encrypted_envelope: '{}',
    opened: { readers, text: { subject, body, signature: 'opened-sig', signed_payload: 'opened-payload' } },
  });
}

/** The three kinds of encrypted mail, written before the migration (`write` = sealedBefore) or after it (sealed). */
function threeMails(write: typeof sealedBefore): void {
  // Sealed between two identities whose keys the node holds.
  write(ann, bob, 'both', BOTH, 'Pier', 'A walrus on the pier');
  // Sealed to an identity holding its own keys: the sender's copy only.
  write(ann, carol, 'sender-only', SENDER, 'Deep', 'A narwhal, of all things');
  // Sealed by an identity holding its own keys (or arrived from another node), opened for its recipient.
  write(carol, bob, 'recipient-only', RECIPIENT, 'Arms', 'An octopus with eight arms');
  // Between two identities holding their own keys: nothing opened.
  write(carol, carol, 'opened-for-none', NEITHER, 'Kept', 'Nowhere');
}

const opened = () =>
  db.prepare(`SELECT message_id, sender_reads, recipient_reads, opened_subject, opened_body, opened_signature, subject, body FROM messages ORDER BY id`).all();

describe(`opened mail in its row after migration ${VERSION}`, () => {
  it('moves every kept text into its message row, with its flags, and drops mail_plaintext', () => {
    threeMails(sealedBefore);
    expect(before.upgrade().applied).toEqual([VERSION]);
    expect(opened()).toEqual([
      {
        message_id: 'both',
        sender_reads: 1,
        recipient_reads: 1,
        opened_subject: 'Pier',
        opened_body: 'A walrus on the pier',
        opened_signature: 'opened-sig',
        subject: '',
        body: '',
      },
      {
        message_id: 'sender-only',
        sender_reads: 1,
        recipient_reads: 0,
        opened_subject: 'Deep',
        opened_body: 'A narwhal, of all things',
        opened_signature: 'opened-sig',
        subject: '',
        body: '',
      },
      {
        message_id: 'recipient-only',
        sender_reads: 0,
        recipient_reads: 1,
        opened_subject: 'Arms',
        opened_body: 'An octopus with eight arms',
        opened_signature: 'opened-sig',
        subject: '',
        body: '',
      },
      {
        message_id: 'opened-for-none',
        sender_reads: 0,
        recipient_reads: 0,
        opened_subject: null,
        opened_body: null,
        opened_signature: null,
        subject: '',
        body: '',
      },
    ]);
    expect(db.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'mail_plaintext'`).pluck().get()).toBe(0);
  });

  for (const [when, write] of [
    ['kept before it', sealedBefore],
    ['stored after it', sealed],
  ] as const) {
    it(`gives each side its text only when the node reads the mail for that side (${when})`, () => {
      if (write === sealedBefore) threeMails(sealedBefore);
      before.upgrade();
      if (write === sealed) threeMails(sealed);

      const inbox = (agent: AgentRow) =>
        inboxRows(db, agent.agent_id, { folder: null, unreadOnly: false, limit: 10 }).map((row) => [row.message_id, row.body, row.signature]);
      expect(inbox(bob)).toEqual([
        ['recipient-only', 'An octopus with eight arms', 'opened-sig'],
        ['both', 'A walrus on the pier', 'opened-sig'],
      ]);
      // Carol reads the envelope herself: her copy stays as stored.
      expect(inbox(carol)).toEqual([
        ['opened-for-none', '', 'sig'],
        ['sender-only', '', 'sig'],
      ]);

      const sent = (agent: AgentRow) => localSentRows(db, agent.agent_id, null, 10).map((row) => [row.message_id, row.body, row.signature]);
      expect(sent(ann)).toEqual([
        ['sender-only', 'A narwhal, of all things', 'opened-sig'],
        ['both', 'A walrus on the pier', 'opened-sig'],
      ]);
      expect(sent(carol)).toEqual([
        ['opened-for-none', '', 'sig'],
        ['recipient-only', '', 'sig'],
      ]);

      const body = (agent: AgentRow, messageId: string) => readableMailBody(db, { agentId: agent.agent_id, messageId });
      expect(body(ann, 'sender-only')).toBe('A narwhal, of all things');
      expect(body(carol, 'sender-only')).toBe('');
      expect(body(bob, 'recipient-only')).toBe('An octopus with eight arms');
      expect(body(carol, 'recipient-only')).toBe('');
      expect(body(ann, 'both')).toBe('A walrus on the pier');
      expect(body(bob, 'both')).toBe('A walrus on the pier');
    });
  }

  it('keeps nothing opened for a mail it reads for neither party, and the row as stored never carries the opened text', () => {
    before.upgrade();
    threeMails(sealed);
    expect(opened().at(-1)).toMatchObject({ message_id: 'opened-for-none', opened_subject: null, opened_body: null });
    // The node-wide wake feed reads rows as stored: an encrypted mail's subject and body empty, no opened column at all.
    for (const row of mailStoredSince(db, 0, 10)) {
      expect(row).toMatchObject({ subject: '', body: '' });
      expect(Object.keys(row).filter((key) => key.startsWith('opened_') || key.endsWith('_reads'))).toEqual([]);
    }
  });

  it('lets search find the opened text for exactly the identities it was opened for', () => {
    sealedBefore(ann, bob, 'both', BOTH, 'Pier', 'A walrus on the pier');
    sealedBefore(ann, carol, 'sender-only', SENDER, 'Deep', 'A narwhal, of all things');
    before.upgrade();
    // Stored after it, through the store.
    sealed(carol, bob, 'recipient-only', RECIPIENT, 'Arms', 'An octopus with eight arms');

    const search = new SearchService(db, systemClock);
    const found = (agent: AgentRow, q: string) =>
      search
        .search(identityScope(agent.agent_id), SearchQuery.parse({ q }))
        .results.map((hit) => (hit.kind === 'mail' ? hit.message_id : hit.kind))
        .sort();
    const expectFound = () => {
      expect(found(ann, 'walrus')).toEqual(['both']);
      expect(found(bob, 'walrus')).toEqual(['both']);
      expect(found(ann, 'narwhal')).toEqual(['sender-only']);
      expect(found(carol, 'narwhal')).toEqual([]);
      expect(found(bob, 'octopus')).toEqual(['recipient-only']);
      expect(found(carol, 'octopus')).toEqual([]);
      expect(found(ann, 'octopus')).toEqual([]);
    };
    // Noted and not yet indexed (read from the view as a search runs), then from the index itself.
    expectFound();
    new SearchIndexer(db).runToEnd();
    expectFound();
    const hit = search.search(identityScope(ann.agent_id), SearchQuery.parse({ q: 'narwhal' })).results[0];
    expect(hit).toMatchObject({ kind: 'mail', title: 'Deep', folder: 'sent' });
  });
});
