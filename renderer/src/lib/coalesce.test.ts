import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalesce } from './coalesce.ts';

/** A run that stays in flight until `finish()` is called. */
function slowRun() {
  let runs = 0;
  let finish: () => void = () => undefined;
  const run = (): Promise<void> => {
    runs++;
    return new Promise((done) => (finish = done));
  };
  return { run, runs: () => runs, finish: () => finish() };
}

describe('coalesce', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs once after a burst of nudges pauses', async () => {
    const { run, runs } = slowRun();
    const schedule = coalesce(run, 150);
    schedule();
    await vi.advanceTimersByTimeAsync(100);
    schedule();
    schedule();
    await vi.advanceTimersByTimeAsync(149);
    expect(runs()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs()).toBe(1);
  });

  it('never runs twice at once: nudges during a run make one more run after it', async () => {
    const slow = slowRun();
    const schedule = coalesce(slow.run, 150);
    schedule();
    await vi.advanceTimersByTimeAsync(150);
    expect(slow.runs()).toBe(1);
    schedule();
    await vi.advanceTimersByTimeAsync(150);
    schedule();
    await vi.advanceTimersByTimeAsync(150);
    expect(slow.runs()).toBe(1);
    slow.finish();
    await vi.advanceTimersByTimeAsync(149);
    expect(slow.runs()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(slow.runs()).toBe(2);
    slow.finish();
    await vi.advanceTimersByTimeAsync(1000);
    expect(slow.runs()).toBe(2);
  });
});
