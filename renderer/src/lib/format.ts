/**
 * Small formatting helpers for the views: relative dates, initials, shortened DIDs. Pure
 * functions (no DOM), unit tested in format.test.ts.
 */

/** Parses the node's timestamps (ISO 8601 strings, or epoch seconds/milliseconds). */
export function parseTimestamp(value: string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  let date: Date;
  if (typeof value === 'number') {
    date = new Date(value < 1e12 ? value * 1000 : value);
  } else if (/^\d+(\.\d+)?$/.test(value)) {
    return parseTimestamp(Number(value));
  } else {
    date = new Date(value);
  }
  return Number.isNaN(date.getTime()) ? null : date;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then a short date ("21 Nov",
 * or "21 Nov 2025" in another year). Local time; `now` is injectable for tests.
 */
export function relativeTime(date: Date, now: Date = new Date()): string {
  const seconds = Math.round((now.getTime() - date.getTime()) / 1000);
  if (seconds < -60) return shortDate(date, now);
  if (seconds < 45) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.max(1, calendarDaysBetween(date, now));
  if (days === 1) return 'yesterday';
  if (days < 7) return `${plural(days, 'day')} ago`;
  return shortDate(date, now);
}

/**
 * How soon the label of `date` may change, so a clock showing it ticks then: every second while
 * it is under a minute old ("just now" turns into "1 min ago" on time), every 10 s under an hour,
 * else every minute (the most a label lags then). A future time: once a minute; no particular
 * time (a clock used for countdowns): every 30 s.
 */
export function refreshDelayMs(date: Date | null, now: Date): number {
  if (date === null) return 30_000;
  const age = now.getTime() - date.getTime();
  if (age < -60_000) return 60_000;
  if (age < 60_000) return 1_000;
  if (age < 3_600_000) return 10_000;
  return 60_000;
}

function calendarDaysBetween(earlier: Date, later: Date): number {
  const a = Date.UTC(earlier.getFullYear(), earlier.getMonth(), earlier.getDate());
  const b = Date.UTC(later.getFullYear(), later.getMonth(), later.getDate());
  return Math.round((b - a) / 86_400_000);
}

function shortDate(date: Date, now: Date): string {
  const day = `${date.getDate()} ${MONTHS[date.getMonth()]}`;
  return date.getFullYear() === now.getFullYear() ? day : `${day} ${date.getFullYear()}`;
}

/** The exact local time, for tooltips: "Saturday, 21 November 2026 at 15:54:33". */
export function exactTime(date: Date, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'medium' }).format(date);
}

/**
 * One or two letters for an avatar: the first letters of the first two words ("Alice Smith" → AS,
 * "billing-agent" → BA), or the first letter of a single word ("alice" → A). Never empty.
 */
export function initials(name: string): string {
  const words = name
    .trim()
    .split(/[\s._\-/@]+/u)
    .filter((word) => word !== '');
  const letters = words.slice(0, 2).map((word) => Array.from(word)[0] ?? '');
  const result = letters.join('').toLocaleUpperCase();
  return result === '' ? '?' : result;
}

/** Middle-truncates a long string: "z6MkhaXg…2doK". Short strings come back unchanged. */
export function middleTruncate(value: string, head = 6, tail = 4): string {
  const chars = Array.from(value);
  if (chars.length <= head + tail + 1) return value;
  return `${chars.slice(0, head).join('')}…${chars.slice(-tail).join('')}`;
}

/**
 * A DID short enough for a list: the method stays readable, the identifier is middle-truncated
 * ("did:svc:3Ht7eW…x9Qa"). Anything that is not a DID is truncated as a whole.
 */
export function shortenDid(did: string, head = 6, tail = 4): string {
  const match = /^(did:[a-z0-9]+:)(.+)$/.exec(did);
  if (match === null) return middleTruncate(did, head, tail);
  return `${match[1]}${middleTruncate(match[2] ?? '', head, tail)}`;
}

/**
 * The did:key fingerprint as people compare it: the multibase identifier without the
 * `did:key:` prefix, shortened ("z6MkhaXg…2doK").
 */
export function keyFingerprint(didKey: string, head = 8, tail = 4): string {
  return middleTruncate(didKey.replace(/^did:key:/, ''), head, tail);
}

/**
 * A count as people read it: digits grouped the reader's way ("66,666"), by Intl. `locale` is
 * for tests; the app uses the reader's.
 */
export function formatCount(count: number, locale?: string): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(count);
}

/**
 * The app's one way to say how many: "1 identity", "3 identities", "66,666 messages" (the
 * count grouped as formatCount does). Every "N things" in the app goes through it, so none
 * reads "1 messages".
 */
export function plural(count: number, singular: string, pluralForm = `${singular}s`, locale?: string): string {
  return `${formatCount(count, locale)} ${count === 1 ? singular : pluralForm}`;
}

/** A size in words: "512 bytes", "2.1 KB", "1.4 MB" (1 KB = 1024 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return plural(bytes, 'byte');
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value)} ${units[unit]}`;
}

/** A stable hue (0–359) for an avatar background, derived from a string. */
export function hueFor(seed: string): number {
  let hash = 0;
  for (const char of seed) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return hash % 360;
}

/** A caught error in words for the page (the node's `detail` arrives as the message); never a stack. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
