import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '../../test/support/store-database.ts';
import { ANSWER_LIMITS, ReplayCache } from './replay-cache.ts';
import { SqliteSignatureStore } from './replay-store.ts';

const db = useStoreDatabase();
const WINDOW = 300_000;
let now = 1_800_000_000_000;
const answer = (text: string, status = 201) => ({ status, contentType: 'application/json', body: Buffer.from(text) });

/** Many statements in one transaction: each alone would wait for its own fsync. */
const batch = (run: () => void): void => db().transaction(run)();

describe('SqliteSignatureStore', () => {
  it('keeps the claim and the first answer across a restart (a new store over the same database)', async () => {
    now += 10 * WINDOW;
    const before = new ReplayCache(WINDOW, new SqliteSignatureStore(db(), WINDOW, now));
    const claim = before.claim('team:restart', 'fp', now);
    if (claim.kind !== 'first') throw new Error(claim.kind);
    const unanswered = before.claim('team:unanswered', 'fp', now);
    expect(unanswered.kind).toBe('first');
    before.settle(claim.ticket, answer('{"id":1}'), now);

    const after = new ReplayCache(WINDOW, new SqliteSignatureStore(db(), WINDOW, now + 1000));
    const repeat = after.claim('team:restart', 'fp', now + 1000);
    expect(repeat.kind === 'repeat' && (await repeat.outcome)).toEqual({ kind: 'answer', answer: answer('{"id":1}') });
    expect(after.claim('team:restart', 'other', now + 1000)).toEqual({ kind: 'replayed' });
    // Claimed by the run that stopped, never answered: unknown, and it does not run again.
    const lost = after.claim('team:unanswered', 'fp', now + 1000);
    expect(lost.kind === 'repeat' && (await lost.outcome)).toEqual({ kind: 'unanswered' });
  });

  it('sweeps rows two windows old: their signatures can be claimed anew', async () => {
    now += 10 * WINDOW;
    const store = new SqliteSignatureStore(db(), WINDOW, now);
    expect(store.claim('team:aging', 'fp', now + 2 * WINDOW, now)).toBeNull();
    store.answer('team:aging', answer('{}'), now);
    expect(store.claim('team:aging', 'fp', now + 3 * WINDOW, now + WINDOW - 1)).toMatchObject({ status: 201 });
    expect(store.claim('team:aging', 'fp2', now + 4 * WINDOW, now + 2 * WINDOW)).toBeNull();
    expect(store.claim('team:aging', 'fp', now + 4 * WINDOW, now + 2 * WINDOW)).toEqual({ fingerprint: 'fp2', status: null, contentType: null, body: null });
    const count = () => db().prepare('SELECT count(*) FROM replay_signatures WHERE signature_key = ?').pluck().get('team:aging');
    new SqliteSignatureStore(db(), WINDOW, now + 4 * WINDOW);
    expect(count()).toBe(0);
  });

  it('bounds the kept answers by count and bytes: the oldest bodies go, their claims stay', () => {
    now += 10 * WINDOW;
    db().prepare('DELETE FROM replay_signatures').run();
    const store = new SqliteSignatureStore(db(), WINDOW, now);
    const total = ANSWER_LIMITS.maxKeptAnswers + 1;
    batch(() => {
      for (let i = 0; i < total; i++) {
        store.claim(`team:n${i}`, 'fp', now + 2 * WINDOW, now);
        store.answer(`team:n${i}`, answer(`{"n":${i}}`), now + i);
      }
    });
    const kept = () => db().prepare('SELECT count(*) FROM replay_signatures WHERE answer_body IS NOT NULL').pluck().get() as number;
    expect(kept()).toBeLessThanOrEqual(ANSWER_LIMITS.maxKeptAnswers * (7 / 8));
    expect(store.claim('team:n0', 'fp', now + 2 * WINDOW, now)).toEqual({ fingerprint: 'fp', status: 201, contentType: 'application/json', body: null });
    expect(store.claim(`team:n${total - 1}`, 'fp', now + 2 * WINDOW, now)?.body?.toString()).toBe(`{"n":${total - 1}}`);

    db().prepare('DELETE FROM replay_signatures').run();
    const big = new SqliteSignatureStore(db(), WINDOW, now);
    const body = Buffer.alloc(ANSWER_LIMITS.maxAnswerBytes, 0x20);
    const fits = Math.floor(ANSWER_LIMITS.maxKeptBytes / body.length);
    batch(() => {
      for (let i = 0; i <= fits; i++) {
        big.claim(`team:b${i}`, 'fp', now + 2 * WINDOW, now);
        big.answer(`team:b${i}`, { status: 200, contentType: null, body }, now + i);
      }
    });
    const bytes = db().prepare('SELECT sum(length(answer_body)) FROM replay_signatures').pluck().get() as number;
    expect(bytes).toBeLessThanOrEqual(ANSWER_LIMITS.maxKeptBytes * (7 / 8));
    expect(big.claim('team:b0', 'fp', now + 2 * WINDOW, now)?.body).toBeNull();
    expect(big.claim(`team:b${fits}`, 'fp', now + 2 * WINDOW, now)?.body?.length).toBe(body.length);
  });
});
