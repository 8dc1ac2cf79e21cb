import { describe, expect, it } from 'vitest';
import { ANSWER_LIMITS, ReplayCache, type RepeatOutcome } from './replay-cache.ts';

const WINDOW = 300_000;
const NOW = 1_800_000_000_000;
const json = (text: string) => ({ status: 201, contentType: 'application/json; charset=utf-8', body: Buffer.from(text) });

/** Resolves to the outcome if it has settled by the next turn, else 'waiting'. */
async function peek(outcome: Promise<RepeatOutcome>): Promise<RepeatOutcome | 'waiting'> {
  return Promise.race([outcome, new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting')))]);
}

describe('ReplayCache: signed writes', () => {
  it('runs a write once: a repeat while it runs waits for its answer, a later one gets it at once', async () => {
    const cache = new ReplayCache(WINDOW);
    const first = cache.claim('team:sig', 'fp', NOW);
    if (first.kind !== 'first') throw new Error(first.kind);
    const waiting = cache.claim('team:sig', 'fp', NOW + 10);
    if (waiting.kind !== 'repeat') throw new Error(waiting.kind);
    expect(await peek(waiting.outcome)).toBe('waiting');

    cache.settle(first.ticket, json('{"a":1}'), NOW + 20);
    const answer = { kind: 'answer', answer: json('{"a":1}') };
    expect(await waiting.outcome).toEqual(answer);
    const later = cache.claim('team:sig', 'fp', NOW + 1000);
    expect(later.kind).toBe('repeat');
    expect(later.kind === 'repeat' && (await later.outcome)).toEqual(answer);
    // A second settle of the same ticket changes nothing.
    cache.settle(first.ticket, json('{"a":2}'), NOW + 30);
    expect(await (cache.claim('team:sig', 'fp', NOW + 40) as { outcome: Promise<RepeatOutcome> }).outcome).toEqual(answer);
  });

  it('refuses the signature for another request, while the first runs and after', () => {
    const cache = new ReplayCache(WINDOW);
    const first = cache.claim('didkey:sig', 'body-a', NOW);
    expect(cache.claim('didkey:sig', 'body-b', NOW)).toEqual({ kind: 'replayed' });
    if (first.kind === 'first') cache.settle(first.ticket, json('{}'), NOW);
    expect(cache.claim('didkey:sig', 'body-b', NOW)).toEqual({ kind: 'replayed' });
  });

  it('tells a repeat when the first answer is not there: ended without one, too large, streamed', async () => {
    const cache = new ReplayCache(WINDOW);
    const cases: [string, Parameters<ReplayCache['settle']>[1], RepeatOutcome][] = [
      ['none', null, { kind: 'unanswered' }],
      ['large', { status: 200, contentType: null, body: Buffer.alloc(ANSWER_LIMITS.maxAnswerBytes + 1) }, { kind: 'not_kept', status: 200 }],
      ['stream', { status: 201, contentType: 'application/json', body: null }, { kind: 'not_kept', status: 201 }],
    ];
    for (const [key, answer, expected] of cases) {
      const first = cache.claim(key, 'fp', NOW);
      const waiting = cache.claim(key, 'fp', NOW);
      if (first.kind !== 'first' || waiting.kind !== 'repeat') throw new Error('claims');
      cache.settle(first.ticket, answer, NOW);
      expect(await waiting.outcome).toEqual(expected);
      const later = cache.claim(key, 'fp', NOW);
      expect(later.kind === 'repeat' && (await later.outcome)).toEqual(expected);
    }
  });

  it('forgets a write two windows after it was claimed (its timestamp can no longer pass)', () => {
    const cache = new ReplayCache(WINDOW);
    const first = cache.claim('team:old', 'fp', NOW);
    if (first.kind === 'first') cache.settle(first.ticket, json('{}'), NOW);
    expect(cache.claim('team:old', 'fp', NOW + 2 * WINDOW - 1).kind).toBe('repeat');
    expect(cache.claim('team:old', 'fp', NOW + 2 * WINDOW).kind).toBe('first');
  });

  it('keeps at most ANSWER_LIMITS.maxKeptAnswers bodies in memory too, dropping the oldest', async () => {
    const cache = new ReplayCache(WINDOW);
    for (let i = 0; i <= ANSWER_LIMITS.maxKeptAnswers; i++) {
      const claim = cache.claim(`team:m${i}`, 'fp', NOW);
      if (claim.kind === 'first') cache.settle(claim.ticket, json(`{"n":${i}}`), NOW);
    }
    const oldest = cache.claim('team:m0', 'fp', NOW);
    expect(oldest.kind === 'repeat' && (await oldest.outcome)).toEqual({ kind: 'not_kept', status: 201 });
    const newest = cache.claim(`team:m${ANSWER_LIMITS.maxKeptAnswers}`, 'fp', NOW);
    expect(newest.kind === 'repeat' && (await newest.outcome)).toMatchObject({ kind: 'answer' });
  });
});
