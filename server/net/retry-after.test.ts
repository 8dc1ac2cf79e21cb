import { describe, expect, it } from 'vitest';
import { RETRY_AFTER_MAX_SECONDS, retryAfterSeconds } from './retry-after.ts';

/** 90 s before the RFC's example date, Sun, 06 Nov 1994 08:49:37 GMT. */
const NOW = Date.UTC(1994, 10, 6, 8, 48, 7);

describe('retryAfterSeconds', () => {
  it('reads delta-seconds, capped at an hour', () => {
    expect(retryAfterSeconds('120', NOW)).toBe(120);
    expect(retryAfterSeconds(' 5 ', NOW)).toBe(5);
    expect(retryAfterSeconds('0', NOW)).toBe(0);
    expect(retryAfterSeconds('99999999999999999999999', NOW)).toBe(RETRY_AFTER_MAX_SECONDS);
  });

  it('reads an HTTP-date in each of its three forms as seconds from now', () => {
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(90);
    expect(retryAfterSeconds('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(90);
    expect(retryAfterSeconds('Sun Nov  6 08:49:37 1994', NOW)).toBe(90);
    // A part of a second still to wait is waited.
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:49:37 GMT', NOW + 89_500)).toBe(1);
  });

  it('clamps a date in the past to 0 and one far ahead to an hour', () => {
    expect(retryAfterSeconds('Sat, 05 Nov 1994 08:49:37 GMT', NOW)).toBe(0);
    expect(retryAfterSeconds('Fri, 31 Dec 9999 23:59:59 GMT', NOW)).toBe(RETRY_AFTER_MAX_SECONDS);
  });

  it('takes a two-digit year more than 50 years ahead as the last century', () => {
    const in2030 = Date.UTC(2030, 0, 1);
    // '94 read as 2094 would be 64 years ahead: it is 1994, long past.
    expect(retryAfterSeconds('Sunday, 06-Nov-94 08:49:37 GMT', in2030)).toBe(0);
    // '31 read as 2031 is within 50 years: an hour or more ahead.
    expect(retryAfterSeconds('Wednesday, 01-Jan-31 00:00:00 GMT', in2030)).toBe(RETRY_AFTER_MAX_SECONDS);
  });

  it('is null when absent or unparseable', () => {
    for (const value of [
      undefined,
      '',
      'soon',
      '-5',
      '1.5',
      '1e3',
      '0x10',
      '2094-11-06T08:49:37Z',
      'Sun, 06 Nov 1994 08:49:37 UTC',
      'Sun, 31 Feb 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 25:49:37 GMT',
      'Sun, 06 Foo 1994 08:49:37 GMT',
    ]) {
      expect(retryAfterSeconds(value, NOW), String(value)).toBeNull();
    }
  });
});
