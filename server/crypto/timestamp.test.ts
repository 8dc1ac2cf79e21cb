import { describe, it, expect } from 'vitest';
import { isSecondPrecisionTimestamp, parseRfc3339 } from './timestamp.ts';

describe('isSecondPrecisionTimestamp', () => {
  it('accepts second precision with Z or an offset', () => {
    expect(isSecondPrecisionTimestamp('2026-04-18T12:00:00Z')).toBe(true);
    expect(isSecondPrecisionTimestamp('2026-04-18T12:00:00+02:00')).toBe(true);
    expect(isSecondPrecisionTimestamp('2026-04-18T12:00:00-05:30')).toBe(true);
  });

  it('refuses fractions, missing zones and impossible values', () => {
    for (const bad of [
      '2026-04-18T12:00:00.000Z',
      '2026-04-18T12:00:00',
      '2026-04-18 12:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-04-18T12:00:00+0200',
      1700000000,
    ]) {
      expect(isSecondPrecisionTimestamp(bad), String(bad)).toBe(false);
    }
  });
});

describe('parseRfc3339', () => {
  it('parses with or without fractional seconds', () => {
    expect(parseRfc3339('2026-02-22T10:00:00Z')).toBe(Date.UTC(2026, 1, 22, 10));
    expect(parseRfc3339('2026-02-22T12:00:00.250+02:00')).toBe(Date.UTC(2026, 1, 22, 10, 0, 0, 250));
  });

  it('returns null for anything else', () => {
    expect(parseRfc3339('2026-02-22')).toBeNull();
    expect(parseRfc3339('Sun, 22 Feb 2026 10:00:00 GMT')).toBeNull();
    expect(parseRfc3339(null)).toBeNull();
  });
});
