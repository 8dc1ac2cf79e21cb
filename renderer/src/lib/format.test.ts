import { describe, expect, it } from 'vitest';
import {
  errorMessage,
  exactTime,
  formatBytes,
  hueFor,
  initials,
  keyFingerprint,
  middleTruncate,
  parseTimestamp,
  formatCount,
  plural,
  refreshDelayMs,
  relativeTime,
  shortenDid,
} from './format.ts';

describe('parseTimestamp', () => {
  it('reads ISO strings and epoch seconds or milliseconds', () => {
    expect(parseTimestamp('2026-11-21T15:00:00Z')?.toISOString()).toBe('2026-11-21T15:00:00.000Z');
    expect(parseTimestamp(1_800_000_000)?.toISOString()).toBe('2027-01-15T08:00:00.000Z');
    expect(parseTimestamp(1_800_000_000_000)?.toISOString()).toBe('2027-01-15T08:00:00.000Z');
    expect(parseTimestamp('1800000000')?.toISOString()).toBe('2027-01-15T08:00:00.000Z');
  });

  it('returns null for nothing or nonsense', () => {
    expect(parseTimestamp(null)).toBeNull();
    expect(parseTimestamp(undefined)).toBeNull();
    expect(parseTimestamp('')).toBeNull();
    expect(parseTimestamp('yesterday-ish')).toBeNull();
  });
});

describe('relativeTime', () => {
  const now = new Date(2026, 10, 21, 15, 0, 0);
  const ago = (ms: number): Date => new Date(now.getTime() - ms);
  const MIN = 60_000;
  const HOUR = 60 * MIN;

  it('says just now for the last minute and small clock skew', () => {
    expect(relativeTime(ago(0), now)).toBe('just now');
    expect(relativeTime(ago(44_000), now)).toBe('just now');
    expect(relativeTime(ago(-30_000), now)).toBe('just now');
  });

  it('counts minutes and hours', () => {
    expect(relativeTime(ago(3 * MIN), now)).toBe('3 min ago');
    expect(relativeTime(ago(59 * MIN), now)).toBe('59 min ago');
    expect(relativeTime(ago(2 * HOUR + 5 * MIN), now)).toBe('2 h ago');
    expect(relativeTime(ago(23 * HOUR), now)).toBe('23 h ago');
  });

  it('uses yesterday and days for the last week', () => {
    expect(relativeTime(new Date(2026, 10, 20, 9, 0), now)).toBe('yesterday');
    expect(relativeTime(new Date(2026, 10, 17, 9, 0), now)).toBe('4 days ago');
  });

  it('falls back to a short date, with the year only when it differs', () => {
    expect(relativeTime(new Date(2026, 9, 2, 9, 0), now)).toBe('2 Oct');
    expect(relativeTime(new Date(2025, 0, 5, 9, 0), now)).toBe('5 Jan 2025');
    expect(relativeTime(new Date(2026, 11, 24, 9, 0), now)).toBe('24 Dec');
  });
});

describe('exactTime', () => {
  it('includes the full date and the seconds', () => {
    const text = exactTime(new Date(2026, 10, 21, 15, 4, 33), 'en-GB');
    expect(text).toContain('2026');
    expect(text).toContain('November');
    expect(text).toContain('15:04:33');
  });
});

describe('initials', () => {
  it('takes the first letters of the first two words', () => {
    expect(initials('Alice Smith')).toBe('AS');
    expect(initials('billing-agent')).toBe('BA');
    expect(initials('support_bot_3')).toBe('SB');
    expect(initials('acme.test/alice')).toBe('AT');
  });

  it('takes one letter of a single word, uppercased', () => {
    expect(initials('alice')).toBe('A');
    expect(initials('  émile ')).toBe('É');
  });

  it('keeps astral characters whole and is never empty', () => {
    expect(initials('😀 smile')).toBe('😀S');
    expect(initials('')).toBe('?');
    expect(initials(' - ')).toBe('?');
  });
});

describe('DID shortening', () => {
  const didKey = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';

  it('middle-truncates long values only', () => {
    expect(middleTruncate('abcdefghijklmnop', 3, 3)).toBe('abc…nop');
    expect(middleTruncate('short', 3, 3)).toBe('short');
  });

  it('keeps the DID method readable', () => {
    expect(shortenDid('did:svc:3Ht7eWq2VnQx9QaZ1b2c3d4e')).toBe('did:svc:3Ht7eW…3d4e');
    expect(shortenDid(didKey)).toBe('did:key:z6Mkha…2doK');
    expect(shortenDid('not-a-did-but-quite-long-anyway')).toBe('not-a-…yway');
  });

  it('shows the did:key fingerprint without the prefix', () => {
    expect(keyFingerprint(didKey)).toBe('z6MkhaXg…2doK');
    expect(keyFingerprint('z6Mkshort')).toBe('z6Mkshort');
  });
});

describe('formatBytes', () => {
  it('says a size in bytes, KB or MB', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(1023)).toBe('1,023 bytes');
    expect(formatBytes(1024)).toBe('1 KB');
    expect(formatBytes(2150)).toBe('2.1 KB');
    expect(formatBytes(200 * 1024)).toBe('200 KB');
    expect(formatBytes(1.4 * 1024 * 1024)).toBe('1.4 MB');
  });
});

describe('plural and hueFor', () => {
  it('pluralises', () => {
    expect(plural(1, 'identity', 'identities')).toBe('1 identity');
    expect(plural(0, 'identity', 'identities')).toBe('0 identities');
    expect(plural(2, 'address', 'addresses')).toBe('2 addresses');
    expect(plural(3, 'project')).toBe('3 projects');
    expect(plural(1, 'line')).toBe('1 line');
    expect(plural(1, 'message')).toBe('1 message');
  });

  it('groups large counts the reader’s way', () => {
    expect(formatCount(66666, 'en')).toBe('66,666');
    expect(formatCount(999, 'en')).toBe('999');
    expect(formatCount(1234567, 'de')).toBe('1.234.567');
    expect(plural(66666, 'unread message', 'unread messages', 'en')).toBe('66,666 unread messages');
    expect(plural(1200, 'line', 'lines', 'en')).toBe('1,200 lines');
  });

  it('gives a stable hue in range', () => {
    expect(hueFor('alice')).toBe(hueFor('alice'));
    for (const seed of ['', 'a', 'alice', 'did:svc:xyz']) {
      expect(hueFor(seed)).toBeGreaterThanOrEqual(0);
      expect(hueFor(seed)).toBeLessThan(360);
    }
  });
});

describe('errorMessage', () => {
  it('takes an Error’s message and stringifies anything else', () => {
    expect(errorMessage(new Error('namespace exists'))).toBe('namespace exists');
    expect(errorMessage('offline')).toBe('offline');
    expect(errorMessage(404)).toBe('404');
  });
});

describe('refreshDelayMs', () => {
  const now = new Date('2026-11-25T10:00:00Z');
  const ago = (ms: number): Date => new Date(now.getTime() - ms);

  it('asks for a tick every second under a minute, every 10 s under an hour, else every minute', () => {
    expect(refreshDelayMs(ago(0), now)).toBe(1_000);
    expect(refreshDelayMs(ago(59_000), now)).toBe(1_000);
    expect(refreshDelayMs(ago(60_000), now)).toBe(10_000);
    expect(refreshDelayMs(ago(59 * 60_000), now)).toBe(10_000);
    expect(refreshDelayMs(ago(2 * 3_600_000), now)).toBe(60_000);
    expect(refreshDelayMs(null, now)).toBe(30_000);
    expect(refreshDelayMs(ago(-5 * 60_000), now)).toBe(60_000);
  });
});
