/**
 * Mail written but not yet moved into the search index (migration 0031, indexer.ts) is found all
 * the same, through the in-memory index of noted rows (pending-store.ts): before the indexer runs,
 * after it runs (once, from the real index), after a restart that found rows still noted (a
 * crash), and not at all once deleted. On a real encrypted node database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SearchQuery } from '../../contract/core/search.ts';
import { openNodeDatabase } from '../../test/support/database.ts';
import { mailRow } from '../../test/support/mail-rows.ts';
import { addIdentity } from '../../test/support/store-database.ts';
import { systemClock } from '../clock.ts';
import type { Db } from '../context.ts';
import { insertMailRow } from '../surfaces/core/mail/store/messages.ts';
import { SearchIndexer } from './indexer.ts';
import { pendingCount } from './pending-store.ts';
import { identityScope } from './scopes.ts';
import { SearchService } from './service.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-search-pending-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const indexed = (db: Db, messageId: string): boolean =>
  db.prepare(`SELECT count(*) FROM search_mail WHERE rowid = (SELECT id FROM messages WHERE message_id = ?)`).pluck().get(messageId) === 1;

describe('mail not yet indexed', () => {
  it('is found before the indexer runs, once after, after a restart that finds it still noted, and not once deleted', async () => {
    let opened = await openNodeDatabase(dir);
    let db = opened.db;
    const sender = addIdentity(db, { alias: 'sender' });
    const recipient = addIdentity(db, { alias: 'recipient' });
    const scope = identityScope(recipient.agent_id);
    const titles = (search: SearchService, q: string) => search.search(scope, SearchQuery.parse({ q })).results.map((hit) => hit.title);

    insertMailRow(db, mailRow(sender, recipient, { message_id: 'm-1', subject: 'Walrus sighting', body: 'A walrus on the pier.' }));
    insertMailRow(db, mailRow(sender, recipient, { message_id: 'm-2', subject: 'Gulls', body: 'Only gulls today, and a walrus-shaped rock.' }));
    expect(pendingCount(db)).toBe(2);
    expect(indexed(db, 'm-1')).toBe(false);
    const search = new SearchService(db, systemClock);
    expect(titles(search, 'walrus')).toEqual(expect.arrayContaining(['Walrus sighting', 'Gulls']));
    expect(titles(search, '"walrus shaped"')).toEqual(['Gulls']);
    // A prefix of words the index does not hold yet (the index's word list names none of them).
    expect(titles(search, 'walru*').sort()).toEqual(['Gulls', 'Walrus sighting']);
    expect(search.indexState().complete).toBe(true);

    // Moved into the index: found once each, from there.
    new SearchIndexer(db).runToEnd();
    expect(pendingCount(db)).toBe(0);
    expect(indexed(db, 'm-1')).toBe(true);
    expect(titles(search, 'walrus').sort()).toEqual(['Gulls', 'Walrus sighting']);
    expect(titles(search, 'walru*').sort()).toEqual(['Gulls', 'Walrus sighting']);

    // Noted rows left by a crash: a new connection finds them, and its indexer moves them.
    insertMailRow(db, mailRow(sender, recipient, { message_id: 'm-3', subject: 'Narwhal', body: 'A narwhal, of all things.' }));
    opened.close();
    opened = await openNodeDatabase(dir);
    db = opened.db;
    const again = new SearchService(db, systemClock);
    expect(titles(again, 'narwhal')).toEqual(['Narwhal']);
    new SearchIndexer(db).runToEnd();
    expect(indexed(db, 'm-3')).toBe(true);
    expect(titles(again, 'narwhal')).toEqual(['Narwhal']);

    // Deleted while noted: gone from the note and from search.
    insertMailRow(db, mailRow(sender, recipient, { message_id: 'm-4', subject: 'Octopus', body: 'Eight arms.' }));
    expect(titles(again, 'octopus')).toEqual(['Octopus']);
    db.prepare(`DELETE FROM messages WHERE message_id = 'm-4'`).run();
    expect(pendingCount(db)).toBe(0);
    expect(titles(again, 'octopus')).toEqual([]);
    opened.close();
  });

  it('keeps moving notes after a batch fails, and never stops the node over it', async () => {
    const opened = await openNodeDatabase(dir);
    const other = await openNodeDatabase(dir);
    try {
      const db = opened.db;
      const [sender, recipient] = [addIdentity(db, { alias: 'locked-out' }), addIdentity(db, { alias: 'waiting' })];
      insertMailRow(db, mailRow(sender, recipient, { message_id: 'm-locked', subject: 'Held up', body: 'A batch that waits.' }));
      // Another process holds the write lock, and this connection does not wait for it.
      other.db.exec('BEGIN IMMEDIATE');
      db.pragma('busy_timeout=0');
      const errors: unknown[] = [];
      const indexer = new SearchIndexer(db, (error) => errors.push(error));
      indexer.start();
      await expect.poll(() => errors.length, { timeout: 5000, interval: 20 }).toBeGreaterThan(0);
      expect(errors[0]).toMatchObject({ code: 'SQLITE_BUSY' });
      expect(pendingCount(db)).toBe(1);
      other.db.exec('COMMIT');
      await expect.poll(() => pendingCount(db), { timeout: 5000, interval: 20 }).toBe(0);
      expect(indexed(db, 'm-locked')).toBe(true);
      indexer.stop();
    } finally {
      other.close();
      opened.close();
    }
  });
});
