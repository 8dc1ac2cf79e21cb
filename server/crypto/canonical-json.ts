/**
 * Canonical JSON: the one serialisation every signature and hash in the node is computed over.
 *
 * Matches upstream's `json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`:
 * keys sorted by code point at every depth, no insignificant whitespace, literal UTF-8, no HTML
 * escaping, control characters as lowercase `\u00xx`. RFC 8785 libraries sort by UTF-16 code units
 * and reformat numbers, so they would not reproduce upstream's bytes.
 */
import { MAX_JSON_DEPTH } from '../json-depth.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

const LONE_SURROGATE = /\p{Cs}/u;
// eslint-disable-next-line no-control-regex
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

function encodeString(value: string): string {
  // Most strings (ids, keys, base64, times) hold nothing to escape and no surrogate: written as they are.
  if (!NEEDS_CARE.test(value)) return `"${value}"`;
  // Lone surrogates cannot be encoded as UTF-8; refusing them keeps hashes well defined.
  // (\p{Cs} in a u-regex matches only unpaired surrogates; String#isWellFormed is ES2024, beyond our lib.)
  if (LONE_SURROGATE.test(value)) throw new TypeError('canonical JSON: string contains a lone surrogate');
  // eslint-disable-next-line no-control-regex
  return `"${value.replace(/["\\\u0000-\u001f]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

const isSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdfff;

/**
 * Sorts by Unicode code point, not UTF-16 unit, to agree with Python's sorted() on str. The two
 * orders differ only where a surrogate (half of a code point above U+FFFF) meets a unit from
 * U+E000 to U+FFFF: the code point is the greater, though its unit is the smaller. So the first
 * unit that differs decides, with that one case turned round; no string is walked by code point.
 */
function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (isSurrogate(x) && y >= 0xe000) return 1;
    if (isSurrogate(y) && x >= 0xe000) return -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * `depth` counts the arrays and objects around `value`. Inputs are bounded where they enter (JSON
 * bodies, YAML, changeset values), so this is the backstop: a deeper value is refused with the
 * same TypeError as any other unencodable value instead of overflowing the stack.
 */
function encode(value: unknown, depth: number): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isSafeInteger(value)) throw new TypeError('canonical JSON: only safe integers are allowed');
      return String(value);
    case 'string':
      return encodeString(value);
    case 'object': {
      if (depth >= MAX_JSON_DEPTH) throw new TypeError(`canonical JSON: nested deeper than ${MAX_JSON_DEPTH} levels`);
      if (Array.isArray(value)) return `[${value.map((item) => encode(item, depth + 1)).join(',')}]`;
      const record = value as Record<string, unknown>;
      let out = '';
      for (const key of Object.keys(record).sort(compareCodePoints)) {
        const member = record[key];
        if (member === undefined) continue;
        out += `${out === '' ? '' : ','}${encodeString(key)}:${encode(member, depth + 1)}`;
      }
      return `{${out}}`;
    }
    default:
      throw new TypeError(`canonical JSON: cannot encode a ${typeof value}`);
  }
}

/** The canonical text of a JSON value. `undefined` object members are omitted. */
export function canonicalJson(value: unknown): string {
  return encode(value, 0);
}

/** The canonical UTF-8 bytes of a JSON value: what gets signed and hashed. */
export function canonicalJsonBytes(value: unknown): Buffer {
  return Buffer.from(encode(value, 0), 'utf8');
}
