import { describe, expect, it } from 'vitest';
import { HANG_ON_EXTENSION_SECONDS, nextWaitWindow, timeRemaining, waiterOtherThan, type WaitWindow } from './wait-window.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const ms = (seconds: number): number => Date.parse(T0) + seconds * 1000;
const iso = (seconds: number): string => new Date(ms(seconds)).toISOString();
const CLOSED: WaitWindow = { wait_seconds: null, wait_started_at: null, wait_started_by: null, hang_on_count: 0 };
const open = (by: string, seconds = 60, hangOns = 0): WaitWindow => ({
  wait_seconds: seconds,
  wait_started_at: T0,
  wait_started_by: by,
  hang_on_count: hangOns,
});
const says = (signals: Partial<{ wait_seconds: number | null; hang_on: boolean; sender_leaving: boolean }>) => ({
  wait_seconds: null,
  hang_on: false,
  sender_leaving: false,
  ...signals,
});

describe('timeRemaining', () => {
  it('is null without a window, whole seconds rounded up while it runs, then 0', () => {
    expect(timeRemaining(CLOSED, ms(0))).toBeNull();
    expect(timeRemaining(open('a'), ms(0))).toBe(60);
    expect(timeRemaining(open('a'), ms(59.2))).toBe(1);
    expect(timeRemaining(open('a'), ms(61))).toBe(0);
  });

  it('adds 300 s per hang_on', () => {
    expect(timeRemaining(open('a', 60, 2), ms(0))).toBe(60 + 2 * HANG_ON_EXTENSION_SECONDS);
  });
});

describe('nextWaitWindow', () => {
  it('opens, and restarts, the sender’s window with wait_seconds', () => {
    expect(nextWaitWindow(CLOSED, 'a', says({ wait_seconds: 30 }), iso(0))).toEqual({
      wait_seconds: 30,
      wait_started_at: iso(0),
      wait_started_by: 'a',
      hang_on_count: 0,
    });
    expect(nextWaitWindow(open('b', 60, 1), 'a', says({ wait_seconds: 10 }), iso(5))).toEqual({
      wait_seconds: 10,
      wait_started_at: iso(5),
      wait_started_by: 'a',
      hang_on_count: 0,
    });
  });

  it('closes its own window when its sender leaves or sends wait_seconds 0, and leaves another’s alone', () => {
    expect(nextWaitWindow(open('a'), 'a', says({ sender_leaving: true }), iso(1))).toEqual(CLOSED);
    expect(nextWaitWindow(open('a'), 'a', says({ wait_seconds: 0 }), iso(1))).toEqual(CLOSED);
    expect(nextWaitWindow(open('a'), 'b', says({ sender_leaving: true, hang_on: true }), iso(1))).toBeNull();
    expect(nextWaitWindow(open('a'), 'b', says({ wait_seconds: 0, hang_on: true }), iso(1))).toBeNull();
  });

  it('extends someone else’s open window by one hang_on, never its own, a closed or an expired one', () => {
    expect(nextWaitWindow(open('a', 60, 1), 'b', says({ hang_on: true }), iso(10))).toEqual(open('a', 60, 2));
    expect(nextWaitWindow(open('a'), 'a', says({ hang_on: true }), iso(10))).toBeNull();
    expect(nextWaitWindow(CLOSED, 'b', says({ hang_on: true }), iso(10))).toBeNull();
    expect(nextWaitWindow(open('a'), 'b', says({ hang_on: true }), iso(60))).toBeNull();
    expect(nextWaitWindow(open('a'), 'b', says({}), iso(10))).toBeNull();
  });

  it('takes from a sender on another node only its hang_on and goodbye: its wait window is on its own node', () => {
    expect(nextWaitWindow(CLOSED, null, says({ wait_seconds: 30 }), iso(0))).toBeNull();
    expect(nextWaitWindow(open('a'), null, says({ wait_seconds: 0, hang_on: true }), iso(1))).toEqual(open('a', 60, 1));
    expect(nextWaitWindow(open('a'), null, says({ sender_leaving: true, hang_on: true }), iso(1))).toBeNull();
  });
});

describe('waiterOtherThan', () => {
  it('names whoever else has a running window', () => {
    expect(waiterOtherThan(open('a'), 'b', ms(1))).toBe('a');
    expect(waiterOtherThan(open('a'), 'a', ms(1))).toBeNull();
    expect(waiterOtherThan(open('a'), 'b', ms(60))).toBeNull();
    expect(waiterOtherThan(CLOSED, 'b', ms(0))).toBeNull();
  });
});
