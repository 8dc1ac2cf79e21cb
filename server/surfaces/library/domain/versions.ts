/**
 * Version strings of blueprints and shelf profiles (research A5): what a version may look like,
 * the next patch version a proposal mints, and the order "newer than" is judged by. The order is
 * semver precedence where the strings are semver-like and stays a total order for anything else,
 * so callers can sort and compare without guarding.
 */

export const VERSION_PATTERN = /^[0-9][0-9A-Za-z.+-]{0,63}$/;

export function isVersionString(v: string): boolean {
  return VERSION_PATTERN.test(v);
}

const DIGITS = /^[0-9]+$/;

/** `0.1.0`→`0.1.1`, `0.1.13`→`0.1.14`, `1.0.0-rc`→`1.0.0-rc.1`: bump an all-digit last segment, else append `.1`. */
export function nextPatchVersion(v: string): string {
  const segments = v.split('.');
  const last = segments[segments.length - 1] ?? '';
  if (!DIGITS.test(last)) return `${v}.1`;
  segments[segments.length - 1] = (BigInt(last) + 1n).toString();
  return segments.join('.');
}

function compareNumeric(a: string, b: string): number {
  const x = a.replace(/^0+(?=.)/, '');
  const y = b.replace(/^0+(?=.)/, '');
  return x.length !== y.length ? x.length - y.length : x < y ? -1 : x > y ? 1 : 0;
}

/** Semver identifier order: numeric ones by value and before alphanumeric ones, which compare as ASCII. */
function compareIdentifier(a: string, b: string): number {
  const an = DIGITS.test(a);
  const bn = DIGITS.test(b);
  if (an && bn) return compareNumeric(a, b);
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Identifier lists compared in order; when one is a prefix of the other, the shorter is lower. */
function compareIdentifiers(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = compareIdentifier(a[i] as string, b[i] as string);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

interface Parsed {
  release: string[];
  prerelease: string[] | null;
  build: string[] | null;
}

function parse(v: string): Parsed {
  const plus = v.indexOf('+');
  const core = plus === -1 ? v : v.slice(0, plus);
  const dash = core.indexOf('-');
  return {
    release: (dash === -1 ? core : core.slice(0, dash)).split('.'),
    prerelease: dash === -1 ? null : core.slice(dash + 1).split('.'),
    build: plus === -1 ? null : v.slice(plus + 1).split('.'),
  };
}

/**
 * Negative when `a` is older than `b`, 0 only for identical strings. Release segments compare like
 * semver identifiers with missing ones counting as 0 (`1.2` = `1.2.0`); a prerelease is lower than
 * its release; ties are broken by build metadata (absent first), then by the plain strings.
 */
export function compareVersions(a: string, b: string): number {
  const x = parse(a);
  const y = parse(b);
  const width = Math.max(x.release.length, y.release.length);
  const pad = (r: string[]) => [...r, ...Array<string>(width - r.length).fill('0')];
  const release = compareIdentifiers(pad(x.release), pad(y.release));
  if (release !== 0) return release;
  if ((x.prerelease === null) !== (y.prerelease === null)) return x.prerelease === null ? 1 : -1;
  const pre = compareIdentifiers(x.prerelease ?? [], y.prerelease ?? []);
  if (pre !== 0) return pre;
  if ((x.build === null) !== (y.build === null)) return x.build === null ? -1 : 1;
  const build = compareIdentifiers(x.build ?? [], y.build ?? []);
  if (build !== 0) return build;
  return a < b ? -1 : a > b ? 1 : 0;
}
