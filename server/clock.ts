/** Time as the node sees it; tests substitute a fixed or shifted clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds: how the node stamps what it stores. */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}

/** RFC 3339 UTC at second precision (`2026-04-18T12:00:00Z`): what gets signed. */
export function signingTimestamp(clock: Clock): string {
  return clock
    .now()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
}
