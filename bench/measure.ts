/**
 * Small timing helpers: benchmarks report percentiles and a ratio against a baseline measured in
 * the same run, never absolute targets.
 */
export interface Timing {
  n: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
}

export function summarize(samplesMs: number[]): Timing {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    n: sorted.length,
    p50_ms: round(at(0.5)),
    p99_ms: round(at(0.99)),
    mean_ms: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
  };
}

/** Runs `fn` `n` times after `warmup` runs and returns the per-call timings. */
export async function time(n: number, fn: (i: number) => Promise<unknown> | unknown, warmup = Math.min(50, n)): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  return summarize(samples);
}

/**
 * Times each of `fns` `n` times, taking turns call by call, so load from outside the run (other
 * processes on the machine) falls on every side of a ratio alike.
 */
export async function timeInterleaved<K extends string>(
  n: number,
  fns: Record<K, () => Promise<unknown>>,
  warmup = Math.min(50, n),
): Promise<Record<K, Timing>> {
  const entries = Object.entries(fns) as [K, () => Promise<unknown>][];
  for (let i = 0; i < warmup; i++) for (const [, fn] of entries) await fn();
  const samples = new Map<K, number[]>(entries.map(([key]) => [key, []]));
  for (let i = 0; i < n; i++) {
    for (const [key, fn] of entries) {
      const start = performance.now();
      await fn();
      samples.get(key)?.push(performance.now() - start);
    }
  }
  return Object.fromEntries(entries.map(([key]) => [key, summarize(samples.get(key) ?? [])])) as Record<K, Timing>;
}

export function report(name: string, result: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: name, ...result })}\n`);
}
