/**
 * A `Retry-After` answer header as seconds to wait (RFC 9110 §10.2.3): delta-seconds, or an
 * HTTP-date taken relative to now, in any of the three forms a recipient must accept (§5.6.7).
 * Clamped to 0..3600, so a confused or hostile node cannot park this node's queue for it for
 * days; null when absent or unparseable, and the caller falls back to its own backoff.
 */
export const RETRY_AFTER_MAX_SECONDS = 3600;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ([A-Z][a-z]{2}) (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete) */
const RFC_850 = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-([A-Z][a-z]{2})-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` (obsolete, C's asctime) */
const ASCTIME = new RegExp(`^${DAY} ([A-Z][a-z]{2}) ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** Seconds to wait, from `header` and the time now (epoch ms). */
export function retryAfterSeconds(header: string | undefined, now: number): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value), RETRY_AFTER_MAX_SECONDS);
  const at = httpDate(value, now);
  return at === null ? null : Math.min(Math.max(0, Math.ceil((at - now) / 1000)), RETRY_AFTER_MAX_SECONDS);
}

/** The epoch ms an HTTP-date names, or null. */
function httpDate(value: string, now: number): number | null {
  let m = IMF_FIXDATE.exec(value);
  if (m) return utc(Number(m[3]), m[2]!, Number(m[1]), m.slice(4));
  m = RFC_850.exec(value);
  if (m) {
    // A two-digit year more than 50 years ahead is the last century's (§5.6.7).
    const year = 2000 + Number(m[3]);
    return utc(year > new Date(now).getUTCFullYear() + 50 ? year - 100 : year, m[2]!, Number(m[1]), m.slice(4));
  }
  m = ASCTIME.exec(value);
  if (m) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), m.slice(3, 6));
  return null;
}

/** A UTC instant from its parts, or null when a part is out of range (31 Feb, 25:00). */
function utc(year: number, month: string, day: number, time: string[]): number | null {
  const monthIndex = MONTHS.indexOf(month);
  const [hours, minutes, seconds] = time.map(Number) as [number, number, number];
  if (monthIndex < 0 || hours > 23 || minutes > 59 || seconds > 60) return null;
  const at = new Date(Date.UTC(year, monthIndex, day, hours, minutes, seconds));
  return at.getUTCDate() === day && at.getUTCMonth() === monthIndex ? at.getTime() : null;
}
