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

function encodeString(value: string): string {
  // Lone surrogates cannot be encoded as UTF-8; refusing them keeps hashes well defined.
  // (\p{Cs} in a u-regex matches only unpaired surrogates; String#isWellFormed is ES2024, beyond our lib.)
  if (LONE_SURROGATE.test(value)) throw new TypeError('canonical JSON: string contains a lone surrogate');
  // eslint-disable-next-line no-control-regex
  return `"${value.replace(/["\\\u0000-\u001f]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

function compareCodePoints(a: string, b: string): number {
  // Sort by Unicode code point, not UTF-16 unit, to agree with Python's sorted() on str.
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
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
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => compareCodePoints(a, b));
      return `{${entries.map(([k, v]) => `${encodeString(k)}:${encode(v, depth + 1)}`).join(',')}}`;
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
