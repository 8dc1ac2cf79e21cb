/**
 * The library's rules that the node and the UI must apply alike (DESIGN §3: `contract/` is where
 * a rule both sides need is written once): what a blueprint or profile ref may look like, what a
 * version string may look like, the next patch version and the "newer than" order, and how a tag
 * is spelled, and the schema strings of the canonical payloads. The node enforces them
 * (server/surfaces/library/); the UI checks a form with the very same functions, so it never
 * accepts what the node refuses, nor words it differently. (The wire shapes themselves are zod
 * schemas in contract/library/; the UI takes only their types.)
 *
 * Pure: no imports, no Node or DOM APIs (lint keeps it so), so both builds can take it.
 */

// ------------------------------------------------------------------ canonical payloads

/**
 * The `schema` of each canonical payload (docs/adr/0006-library-and-document-surfaces.md). They are
 * ours (`svc.*`, DESIGN §5) and enter every digest, so digests deliberately differ from upstream
 * aweb catalogs. Constants here, not in contract/library/, so the UI can send them without bundling
 * zod.
 */
export const IMPORT_PAYLOAD_SCHEMA = 'svc.blueprint.import-payload.v1';
export const PROFILE_PAYLOAD_SCHEMA = 'svc.blueprint.profile-payload.v1';
export const CHANGESET_SCHEMA = 'svc.library.profile-asset-changeset.v1';

// ------------------------------------------------------------------ refs

/**
 * A blueprint_ref or profile_ref (`aweb.team`, `coder`): it names a directory (`profiles/<ref>/`)
 * and appears in URLs, so lowercase letters, digits, `.`, `-` and `_`, 1-128 characters, starting
 * with a letter or digit (which also rules out `.` and `..`).
 */
export const REF_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/;
export const REF_RULE = '1-128 lowercase letters, digits, ".", "-" or "_", starting with a letter or digit';

export function isRef(value: string): boolean {
  return REF_PATTERN.test(value);
}

// ------------------------------------------------------------------ versions

export const VERSION_PATTERN = /^[0-9][0-9A-Za-z.+-]{0,63}$/;
export const VERSION_RULE = '1-64 characters of 0-9, A-Z, a-z, ".", "+" or "-", starting with a digit';

export function isVersionString(v: string): boolean {
  return VERSION_PATTERN.test(v);
}

/** Why `version` (as typed, trimmed here) cannot be a version, in words; null when it can. */
export function versionProblem(version: string): string | null {
  const value = version.trim();
  if (value === '') return 'Enter a version, for example 0.2.0.';
  if (isVersionString(value)) return null;
  return `"${value}" is not a version: use ${VERSION_RULE}, for example 0.2.0.`;
}

/** Why `version` cannot follow `latest` (the node refuses a version that is not newer); null when it can. */
export function notNewerProblem(version: string, latest: string): string | null {
  return compareVersions(version, latest) > 0 ? null : `version ${version} must be newer than the latest version ${latest}`;
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

interface ParsedVersion {
  release: string[];
  prerelease: string[] | null;
  build: string[] | null;
}

function parseVersion(v: string): ParsedVersion {
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
 * its release; ties are broken by build metadata (absent first), then by the plain strings. It is
 * semver precedence where the strings are semver-like and a total order for anything else, so
 * callers can sort and compare without guarding.
 */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
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

// ------------------------------------------------------------------ tags

/**
 * Tags on blueprints and shelf profiles are record metadata, never part of a digest. One spelling
 * per tag so filters match what users typed: trimmed, lower-cased, and each run of spaces inside
 * made one `-` ("CI" is `ci`, "Shipping Tools" is `shipping-tools`: case and spaces are spelling,
 * one rule for both, and the UI shows what a tag becomes as it is typed). The alphabet is small and
 * URL-safe so a tag is usable as a query value; anything else outside it is refused, and
 * tagSuggestion offers the close tag that would do (`c++` → `c`).
 */
export const MAX_TAGS = 32;
export const MAX_TAG_LENGTH = 64;
const TAG = /^[a-z0-9._-]+$/;

/** The one spelling of a typed tag: trimmed, lower-cased, inner spaces as one `-` ('' for a blank one, which is dropped). */
export function normalizeTag(raw: string): string {
  return raw.trim().toLowerCase().replace(/\s+/g, '-');
}

/** Why a normalised, non-empty tag cannot be one; null when it can. */
export function tagProblem(tag: string): string | null {
  if (tag.length > MAX_TAG_LENGTH) return `tag must be at most ${MAX_TAG_LENGTH} characters`;
  if (!TAG.test(tag)) return `tag "${tag}" may only use a-z, 0-9, ".", "_" and "-"`;
  return null;
}

/** A tag close to a refused one (`code review` → `code-review`), or null when there is none. */
export function tagSuggestion(tag: string): string | null {
  const suggestion = tag
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return suggestion !== '' && suggestion !== tag && tagProblem(suggestion) === null ? suggestion : null;
}

/** What the node makes of one typed tag: its spelling, and why it is refused (null: accepted). */
export interface TagReading {
  typed: string;
  tag: string;
  problem: string | null;
  suggestion: string | null;
}

/** Each typed tag as the node will read it (blank entries left out), in the order typed. */
export function readTags(typed: readonly string[]): TagReading[] {
  const out: TagReading[] = [];
  for (const raw of typed) {
    const tag = normalizeTag(raw);
    if (tag === '') continue;
    const problem = tagProblem(tag);
    out.push({ typed: raw, tag, problem, suggestion: problem === null ? null : tagSuggestion(tag) });
  }
  return out;
}

/** The refusal for a set of more than MAX_TAGS distinct tags, or null. */
export function tagCountProblem(distinct: number): string | null {
  return distinct > MAX_TAGS ? `at most ${MAX_TAGS} tags are allowed (got ${distinct})` : null;
}

/** One refusal in a set of typed tags: at the index of the tag it names, or of the whole set (null). */
export interface TagSetProblem {
  index: number | null;
  msg: string;
}

/**
 * A typed set of tags as the node keeps it: each spelled (normalizeTag), blanks and duplicates
 * dropped, sorted; and every refusal at once, so one answer names each tag to fix.
 */
export function spellTagSet(typed: readonly string[]): { tags: string[]; problems: TagSetProblem[] } {
  const problems: TagSetProblem[] = [];
  const tags = new Set<string>();
  typed.forEach((raw, index) => {
    const tag = normalizeTag(raw);
    if (tag === '') return;
    const problem = tagProblem(tag);
    if (problem !== null) problems.push({ index, msg: problem });
    else tags.add(tag);
  });
  const tooMany = tagCountProblem(tags.size);
  if (tooMany !== null) problems.push({ index: null, msg: tooMany });
  return { tags: [...tags].sort(), problems };
}
