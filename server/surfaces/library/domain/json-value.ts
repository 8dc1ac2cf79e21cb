/**
 * Turning parsed input (YAML documents, changeset bodies) into JSON values that canonical JSON can
 * hash. Canonical JSON only has safe integers, so a float, NaN or infinity is refused here with a
 * location instead of failing later inside a digest; a Buffer, Date or other object a YAML tag can
 * produce is refused too. Objects are rebuilt with own data properties only, so a `__proto__` key
 * stays a key. Nesting deeper than MAX_JSON_DEPTH is refused without descending into it, so the
 * recursion here (and in every digest and dump after it) stays shallow.
 */
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import type { ValidationIssue } from '../../../errors.ts';
import { MAX_JSON_DEPTH } from '../../../json-depth.ts';

type Loc = (string | number)[];

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `depth` counts the lists and mappings around `value`. */
function convert(value: unknown, loc: Loc, depth: number, issues: ValidationIssue[]): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value;
    issues.push({ loc, msg: 'numbers must be whole and within ±2^53; quote other values as strings', type: 'value_error' });
    return null;
  }
  if (Array.isArray(value) || (typeof value === 'object' && isPlainObject(value))) {
    if (depth >= MAX_JSON_DEPTH) {
      issues.push({ loc, msg: `lists and mappings must not nest deeper than ${MAX_JSON_DEPTH} levels`, type: 'value_error' });
      return null;
    }
    if (Array.isArray(value)) return value.map((item, i) => convert(item, [...loc, i], depth + 1, issues));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, [...loc, k], depth + 1, issues)]));
  }
  issues.push({ loc, msg: 'only strings, numbers, booleans, null, lists and mappings are allowed', type: 'value_error' });
  return null;
}

/** The value as JSON, with an issue for every part that has no canonical JSON form. */
export function toJsonValue(value: unknown, loc: Loc): { value: JsonValue; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  return { value: convert(value, loc, 0, issues), issues };
}
