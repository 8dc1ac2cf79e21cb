/**
 * Tags on blueprints and shelf profiles (research A4): record metadata, never part of a digest.
 * One spelling per tag (trimmed, lower-case) so filters match what users typed, and a small,
 * URL-safe alphabet so a tag is usable as a query value.
 */
import { invalid, type ValidationIssue } from '../../../errors.ts';

export const MAX_TAGS = 32;
export const MAX_TAG_LENGTH = 64;
const TAG = /^[a-z0-9._-]+$/;

/** Trimmed, lower-cased, without empties and duplicates, sorted; 422 for a tag that cannot be one. */
export function normalizeTags(tags: readonly string[], loc: (string | number)[] = ['body', 'tags']): string[] {
  const issues: ValidationIssue[] = [];
  const out = new Set<string>();
  tags.forEach((raw, index) => {
    const tag = raw.trim().toLowerCase();
    if (tag === '') return;
    if (tag.length > MAX_TAG_LENGTH) issues.push({ loc: [...loc, index], msg: `tag must be at most ${MAX_TAG_LENGTH} characters`, type: 'value_error' });
    else if (!TAG.test(tag)) issues.push({ loc: [...loc, index], msg: `tag "${tag}" may only use a-z, 0-9, ".", "_" and "-"`, type: 'value_error' });
    else out.add(tag);
  });
  if (out.size > MAX_TAGS) issues.push({ loc, msg: `at most ${MAX_TAGS} tags are allowed (got ${out.size})`, type: 'value_error' });
  if (issues.length > 0) throw invalid(issues);
  return [...out].sort();
}
