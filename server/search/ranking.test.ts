import { describe, expect, it } from 'vitest';
import { oneVersionPerDocument, rank, relevance, type Candidate } from './ranking.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const daysAgo = (days: number) => new Date(NOW - days * 86_400_000).toISOString();
const mail = (id: number, bm25: number, days: number): Candidate => ({ kind: 'mail', id, bm25, created_at: daysAgo(days) });
const doc = (id: number, documentId: string, version: number, currentVersion: number, bm25 = -2): Candidate => ({
  kind: 'document',
  id,
  bm25,
  created_at: daysAgo(1),
  document: { documentId, version, currentVersion, current: version === currentVersion },
});

describe('relevance', () => {
  it('is bm25 negated, halved at 30 days of age, halved again for an older document version', () => {
    expect(relevance(mail(1, -4, 0), NOW)).toBe(4);
    expect(relevance(mail(1, -4, 30), NOW)).toBe(2);
    expect(relevance(doc(1, 'd', 1, 2, -4), NOW)).toBeCloseTo(relevance(doc(2, 'd', 2, 2, -4), NOW) / 2);
  });
});

describe('oneVersionPerDocument', () => {
  it('keeps the current version when it matched, else the newest older one that did', () => {
    const kept = oneVersionPerDocument([doc(1, 'a', 1, 3), doc(2, 'a', 3, 3), doc(3, 'b', 1, 5), doc(4, 'b', 2, 5), mail(9, -1, 0)]);
    expect(kept.map((c) => c.id)).toEqual([2, 4, 9]);
  });
});

describe('rank', () => {
  it('orders by relevance, newest first among equals; or newest first when asked', () => {
    const candidates = [mail(1, -1, 0), mail(2, -5, 10), mail(3, -5, 10), mail(4, -3, 400)];
    expect(rank(candidates, 'relevance', NOW).map((c) => c.id)).toEqual([3, 2, 1, 4]);
    expect(rank(candidates, 'recent', NOW).map((c) => c.id)).toEqual([1, 3, 2, 4]);
  });
});
