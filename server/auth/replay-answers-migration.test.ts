/**
 * Migration 0023 on a database written before it: the signed writes recorded by a node that
 * refused every repeat stay recorded and keep being refused (they have no fingerprint, so no
 * first answer to repeat), and the store works on the upgraded table.
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseBefore, type DatabaseBefore } from '../../test/support/migrations.ts';
import { ReplayCache } from './replay-cache.ts';
import { SqliteSignatureStore } from './replay-store.ts';

const VERSION = 23;
const WINDOW = 300_000;
const NOW = 1_800_000_000_000;

let before: DatabaseBefore;
let db: SQLite.Database;

beforeEach(() => {
  before = databaseBefore(VERSION, { foreignKeys: true });
  db = before.db;
});
afterEach(() => before.close());

describe(`migration ${VERSION}`, () => {
  it('keeps the writes recorded before it refused, and records answers after it', async () => {
    db.prepare(`INSERT INTO replay_signatures (signature_key, expires_at) VALUES (?, ?)`).run('team:before', NOW + 2 * WINDOW);
    expect(before.upgrade().applied).toEqual([VERSION]);

    const cache = new ReplayCache(WINDOW, new SqliteSignatureStore(db, WINDOW, NOW));
    expect(cache.claim('team:before', 'fp', NOW)).toEqual({ kind: 'replayed' });
    const claim = cache.claim('team:after', 'fp', NOW);
    if (claim.kind !== 'first') throw new Error(claim.kind);
    cache.settle(claim.ticket, { status: 201, contentType: 'application/json', body: Buffer.from('{}') }, NOW);
    const repeat = cache.claim('team:after', 'fp', NOW);
    expect(repeat.kind === 'repeat' && (await repeat.outcome)).toEqual({
      kind: 'answer',
      answer: { status: 201, contentType: 'application/json', body: Buffer.from('{}') },
    });
  });
});
