import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './rate-limit.ts';

function clockAt(ms: number) {
  const clock = { t: ms, now: () => new Date(clock.t) };
  return clock;
}

describe('TokenBuckets', () => {
  it('allows a burst, then refuses with the seconds until a token is back', () => {
    const clock = clockAt(0);
    const buckets = new TokenBuckets({ burst: 3, perSecond: 0.5 }, clock);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([0, 0, 0]);
    expect(buckets.take('a')).toBe(2);
    clock.t += 2000;
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('a')).toBe(2);
  });

  it('keeps one bucket per client and never holds more than the burst', () => {
    const clock = clockAt(0);
    const buckets = new TokenBuckets({ burst: 2, perSecond: 10 }, clock);
    buckets.take('a');
    buckets.take('a');
    expect(buckets.take('a')).toBeGreaterThan(0);
    expect(buckets.take('b')).toBe(0);
    clock.t += 60_000;
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([0, 0, 1]);
  });

  it('takes and gives back several tokens at once, never above the burst', () => {
    const clock = clockAt(0);
    const buckets = new TokenBuckets({ burst: 4, perSecond: 1 }, clock);
    expect(buckets.take('a', 3)).toBe(0);
    expect(buckets.take('a', 2)).toBe(1);
    expect(buckets.wait('a', 1)).toBe(0);
    buckets.give('a', 10);
    expect(buckets.take('a', 4)).toBe(0);
    expect(buckets.take('a', 1)).toBe(1);
  });
});
