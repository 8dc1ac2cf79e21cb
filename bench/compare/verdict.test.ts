import { describe, expect, it } from 'vitest';
import type { Timing } from '../measure.ts';
import { compareRounds, median, ratio, verdict, type Comparison } from './verdict.ts';

const timing = (p50: number, p99 = p50 * 3, mean = p50 * 1.2, n = 100): Timing => ({ n, p50_ms: p50, p99_ms: p99, mean_ms: mean });
const compared = (workload: string, ratioP50: number): Comparison => compareRounds(workload, [{ base: timing(1), head: timing(ratioP50) }]);

describe('the comparison of rounds', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });

  it('divides head by base, a zero base equal only to a zero head', () => {
    expect(ratio(1.1, 1)).toBeCloseTo(1.1);
    expect(ratio(0, 0)).toBe(1);
    expect(ratio(0.5, 0)).toBe(Infinity);
  });

  it('reports medians over the rounds, so one round spoilt by outside load does not move it', () => {
    const c = compareRounds('inbox-page', [
      { base: timing(2, 6, 2.2), head: timing(2.1, 7, 2.3) },
      { base: timing(2, 9, 2.4), head: timing(6, 30, 8) }, // a burst of load on the head's turns
      { base: timing(2.2, 7, 2.5), head: timing(2.2, 8, 2.4) },
    ]);
    expect(c).toEqual({
      workload: 'inbox-page',
      rounds: 3,
      base: { n: 300, p50_ms: 2, p99_ms: 7, mean_ms: 2.4 },
      head: { n: 300, p50_ms: 2.2, p99_ms: 8, mean_ms: 2.4 },
      ratio_p50: 1.05,
      ratio_mean: 1.045,
      ratio_p50_rounds: [1.05, 3, 1],
    });
  });

  it('lists the workloads outside the band, slower and faster apart', () => {
    const comparisons = [compared('mail-send', 1.04), compared('search', 1.25), compared('shelf-read', 0.8), compared('chat-send', 0.95)];
    expect(verdict(comparisons, 0.1)).toEqual({
      band: 0.1,
      within_noise: false,
      slower: [{ workload: 'search', ratio_p50: 1.25 }],
      faster: [{ workload: 'shelf-read', ratio_p50: 0.8 }],
    });
    expect(verdict(comparisons, 0.3)).toEqual({ band: 0.3, within_noise: true, slower: [], faster: [] });
  });

  it('counts a ratio on the band edge as within it', () => {
    expect(verdict([compared('a', 1.1), compared('b', 0.9)], 0.1).within_noise).toBe(true);
  });
});
