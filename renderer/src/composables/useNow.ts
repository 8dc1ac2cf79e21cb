/**
 * One shared clock for relative times. It used to tick every 30 s from whenever the first view
 * asked, and to keep its last value while nothing showed a time: a view opened later started
 * from a stale "now" (mail sent seconds ago read "25 Nov", being "in the future"), and labels
 * lagged by up to half a minute. Now:
 * - every new user gets a fresh "now" at once (never a stale one);
 * - the next tick comes when the soonest label can change (`refreshDelayMs`: every second while
 *   something under a minute old is shown, every 10 s under an hour, else every minute);
 * - coming back to a hidden window, where timers are throttled, ticks at once.
 */
import { onScopeDispose, shallowRef, watch } from 'vue';
import type { Ref } from 'vue';
import { refreshDelayMs } from '../lib/format.ts';

const now = shallowRef(new Date());
/** What each user shows: the times whose labels the clock must keep right. */
const shown = new Map<symbol, () => Date | null>();
let timer: ReturnType<typeof setTimeout> | undefined;

/** A list mounting a hundred times schedules once, after they are all in. */
let schedulePending = false;
function scheduleSoon(): void {
  if (schedulePending) return;
  schedulePending = true;
  queueMicrotask(() => {
    schedulePending = false;
    schedule();
  });
}

function schedule(): void {
  clearTimeout(timer);
  timer = undefined;
  if (shown.size === 0) return;
  const current = now.value;
  let delay = Number.POSITIVE_INFINITY;
  for (const date of shown.values()) delay = Math.min(delay, refreshDelayMs(date(), current));
  timer = setTimeout(tick, delay);
}

function tick(): void {
  now.value = new Date();
  schedule();
}

function onVisible(): void {
  if (document.visibilityState === 'visible' && shown.size > 0) tick();
}
if (typeof document !== 'undefined') document.addEventListener('visibilitychange', onVisible);

/**
 * The current time, kept fresh for as long as the calling scope lives. `date` is the time this
 * user shows (a RelTime's value), so the clock ticks often enough for its label; without it the
 * clock ticks every 30 s.
 */
export function useNow(date: () => Date | null = () => null): Readonly<Ref<Date>> {
  const id = Symbol('now');
  shown.set(id, date);
  // Never hand out a stale "now" (the clock may have been idle for hours).
  if (Math.abs(Date.now() - now.value.getTime()) >= 500) now.value = new Date();
  scheduleSoon();
  // A label showing a newer time may need the clock sooner.
  watch(date, scheduleSoon);
  onScopeDispose(() => {
    shown.delete(id);
    if (shown.size === 0) {
      clearTimeout(timer);
      timer = undefined;
    } else scheduleSoon();
  });
  return now;
}
