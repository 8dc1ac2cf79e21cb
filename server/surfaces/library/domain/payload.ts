/**
 * Payload file entries `{path, content_utf8, sha256}` (upstream's shape), checked once at the door.
 *
 * Upstream trusts the client's sha256; we recompute it and refuse a mismatch (DESIGN §5), fill it in
 * when omitted, and refuse content whose bytes or canonical JSON would differ between encoders
 * (U+2028/U+2029, lone surrogates) or that is not text (NUL). Every problem in a payload is reported
 * in one 422 so a client can fix them all at once.
 */
import type { LibraryFile } from '../../../../contract/library/common.ts';
import { sha256Hex } from '../../../crypto/encoding.ts';
import { invalid, type ValidationIssue } from '../../../errors.ts';
import { pathProblem } from './paths.ts';

/** A checked entry, its sha256 computed: the wire's LibraryFile (contract/library/common.ts). */
export type PayloadFile = LibraryFile;
/** An entry as a client sends it, before checkPayloadFiles: its sha256 may be absent or wrong. */
export interface PayloadFileInput {
  path: string;
  content_utf8: string;
  sha256?: string | undefined;
}

export const MAX_FILES = 1000;
export const MAX_FILE_BYTES = 1024 * 1024;

const LONE_SURROGATE = /\p{Cs}/u;

/** `"sha256:" + lowercase hex(sha256(UTF-8 bytes))`. */
export function contentSha256(content: string): string {
  return `sha256:${sha256Hex(Buffer.from(content, 'utf8'))}`;
}

/** A payload entry for `content` at `path`, with its digest computed. */
export function payloadFile(path: string, content: string): PayloadFile {
  return { path, content_utf8: content, sha256: contentSha256(content) };
}

/** Orders by Unicode code point (UTF-8 byte order is code-point order), as digests sort. */
export function comparePaths(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The entries sorted by path. */
export function sortFiles<T extends { path: string }>(files: readonly T[]): T[] {
  return [...files].sort((a, b) => comparePaths(a.path, b.path));
}

/** Why `content` cannot be a payload file's text, or null when it can. */
export function contentProblem(content: string): string | null {
  if (content.includes('\u2028') || content.includes('\u2029')) {
    return 'content must not contain U+2028 or U+2029 (encoders disagree on them, so digests would too)';
  }
  if (content.includes('\u0000')) return 'content must not contain NUL characters';
  if (LONE_SURROGATE.test(content)) return 'content must be valid Unicode text (it has a lone surrogate)';
  if (Buffer.byteLength(content, 'utf8') > MAX_FILE_BYTES) return `content must be at most ${MAX_FILE_BYTES} bytes`;
  return null;
}

/**
 * Validates every entry and returns them with recomputed digests, sorted by path. Throws one 422
 * listing every issue, each located at `[...loc, index, field]`.
 */
export function checkPayloadFiles(files: readonly PayloadFileInput[], loc: (string | number)[]): PayloadFile[] {
  if (files.length === 0) throw invalid('SVC_ERR_VALIDATION', [{ loc, msg: 'at least one file is required', type: 'value_error' }]);
  if (files.length > MAX_FILES) {
    throw invalid('SVC_ERR_VALIDATION', [{ loc, msg: `at most ${MAX_FILES} files are allowed (got ${files.length})`, type: 'value_error' }]);
  }
  const issues: ValidationIssue[] = [];
  const issue = (index: number, field: string, msg: string) => issues.push({ loc: [...loc, index, field], msg, type: 'value_error' });
  const seen = new Map<string, number>();
  const out: PayloadFile[] = [];

  files.forEach((entry, index) => {
    const { path, content_utf8: content, sha256 } = entry as { path: unknown; content_utf8: unknown; sha256?: unknown };
    const first = typeof path === 'string' ? seen.get(path) : undefined;
    const pathIssue =
      typeof path !== 'string'
        ? 'path must be a string'
        : (pathProblem(path) ?? (first !== undefined ? `duplicate path "${path}" (also at index ${first})` : null));
    if (pathIssue) issue(index, 'path', pathIssue);
    else seen.set(path as string, index);
    if (typeof content !== 'string') {
      issue(index, 'content_utf8', 'content_utf8 must be a string');
      return;
    }
    const problem = contentProblem(content);
    if (problem) {
      issue(index, 'content_utf8', problem);
      return;
    }
    const digest = contentSha256(content);
    if (sha256 !== undefined && sha256 !== digest) {
      issue(index, 'sha256', typeof sha256 === 'string' ? 'sha256 does not match content' : 'sha256 must be a string');
      return;
    }
    if (!pathIssue) out.push({ path: path as string, content_utf8: content, sha256: digest });
  });

  // A path cannot be both a file and a directory: `a` and `a/b` could never be written out.
  const paths = [...seen.keys()];
  for (const path of paths) {
    if (paths.some((other) => other.startsWith(`${path}/`))) {
      issue(seen.get(path) as number, 'path', `"${path}" is a file but other paths use it as a directory`);
    }
  }
  if (issues.length > 0) throw invalid('SVC_ERR_VALIDATION', issues);
  return sortFiles(out);
}
