/**
 * From the timings of each round to what the comparison says: per workload the median over the
 * rounds of base and head, and of the ratio head/base; then which workloads fall outside the noise
 * band. The median of rounds rather than one long run, because a burst of load from outside (the
 * machine is shared) spoils a round, and the median leaves that round out.
 */
import type { Timing } from '../measure.ts';

/** One round of one workload: both nodes timed in the same turns. */
export interface RoundTimings {
  base: Timing;
  head: Timing;
}

export interface Summary {
  n: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
}

export interface Comparison {
  workload: string;
  rounds: number;
  /** Medians over the rounds of each round's figures; `n` counts every timed request. */
  base: Summary;
  head: Summary;
  /** The median over the rounds of head/base, p50 and mean. */
  ratio_p50: number;
  ratio_mean: number;
  /** Each round's p50 ratio, in the order they ran, to see the spread. */
  ratio_p50_rounds: number[];
}

export interface Outlier {
  workload: string;
  ratio_p50: number;
}

export interface Verdict {
  band: number;
  within_noise: boolean;
  /** Head slower than base by more than the band. */
  slower: Outlier[];
  /** Head faster than base by more than the band. */
  faster: Outlier[];
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** The middle value; of an even count, the mean of the two middle ones. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** head/base; a base of 0 ms (below the timer's resolution) compares as equal to a head of 0. */
export function ratio(head: number, base: number): number {
  if (base === 0) return head === 0 ? 1 : Infinity;
  return head / base;
}

function summary(timings: Timing[]): Summary {
  return {
    n: timings.reduce((sum, t) => sum + t.n, 0),
    p50_ms: round3(median(timings.map((t) => t.p50_ms))),
    p99_ms: round3(median(timings.map((t) => t.p99_ms))),
    mean_ms: round3(median(timings.map((t) => t.mean_ms))),
  };
}

export function compareRounds(workload: string, rounds: readonly RoundTimings[]): Comparison {
  const p50Ratios = rounds.map((r) => ratio(r.head.p50_ms, r.base.p50_ms));
  return {
    workload,
    rounds: rounds.length,
    base: summary(rounds.map((r) => r.base)),
    head: summary(rounds.map((r) => r.head)),
    ratio_p50: round3(median(p50Ratios)),
    ratio_mean: round3(median(rounds.map((r) => ratio(r.head.mean_ms, r.base.mean_ms)))),
    ratio_p50_rounds: p50Ratios.map(round3),
  };
}

/** Which workloads' median p50 ratio lies outside [1 - band, 1 + band]. */
export function verdict(comparisons: readonly Comparison[], band: number): Verdict {
  const outlier = (c: Comparison): Outlier => ({ workload: c.workload, ratio_p50: c.ratio_p50 });
  const slower = comparisons.filter((c) => c.ratio_p50 > 1 + band).map(outlier);
  const faster = comparisons.filter((c) => c.ratio_p50 < 1 - band).map(outlier);
  return { band, within_noise: slower.length === 0 && faster.length === 0, slower, faster };
}
