/**
 * The shared clock behind every relative time: a view that opens after the clock sat idle gets
 * the time of now, not of its last tick (the "25 Nov" for mail sent seconds ago), and it ticks
 * as often as the soonest label needs: every second for something under a minute old.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope, nextTick, ref } from 'vue';
import { useNow } from './useNow.ts';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-11-25T10:00:00Z'));
});
afterEach(() => {
  vi.useRealTimers();
});

/** useNow inside its own scope, as a component would hold it. */
function holdNow(date?: () => Date | null) {
  const scope = effectScope();
  const now = scope.run(() => useNow(date))!;
  return { now, stop: () => scope.stop() };
}

describe('useNow', () => {
  it('gives a late user the time of now, not of the last tick', async () => {
    const first = holdNow();
    first.stop();
    vi.setSystemTime(new Date('2026-11-25T14:00:00Z'));
    const late = holdNow();
    expect(late.now.value.toISOString()).toBe('2026-11-25T14:00:00.000Z');
    late.stop();
  });

  it('ticks every second while something under a minute old is shown, then less often', async () => {
    const shown = ref<Date | null>(new Date('2026-11-25T10:00:00Z'));
    const held = holdNow(() => shown.value);
    await nextTick();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(held.now.value.toISOString()).toBe('2026-11-25T10:00:01.000Z');
    await vi.advanceTimersByTimeAsync(59_000);
    expect(held.now.value.toISOString()).toBe('2026-11-25T10:01:00.000Z');
    // Over a minute old: the next tick is 10 s away.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(held.now.value.toISOString()).toBe('2026-11-25T10:01:00.000Z');
    await vi.advanceTimersByTimeAsync(9_000);
    expect(held.now.value.toISOString()).toBe('2026-11-25T10:01:10.000Z');
    // Something fresh shown again: back to every second.
    shown.value = new Date('2026-11-25T10:01:10Z');
    await nextTick();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(held.now.value.toISOString()).toBe('2026-11-25T10:01:11.000Z');
    held.stop();
  });

  it('stops ticking when nothing shows a time', async () => {
    const held = holdNow(() => new Date('2026-11-25T10:00:00Z'));
    held.stop();
    const before = vi.getTimerCount();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(vi.getTimerCount()).toBe(before);
    expect(before).toBe(0);
  });
});
