import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonBytes } from './canonical-json.ts';

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order, and adds no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1, 2], c: null } })).toBe('{"a":{"c":null,"d":[3,1,2]},"b":1}');
  });

  it('sorts by code point, not UTF-16 unit (astral keys after U+FFFF-range keys)', () => {
    expect(canonicalJson({ '\u{1F600}': 1, '\uFB01': 2 })).toBe('{"\uFB01":2,"\u{1F600}":1}');
  });

  it('orders keys by code point wherever surrogates, the units around them and prefixes meet', () => {
    const units = ['a', 'z', '\u00e9', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{1F600}', '\u{10FFFF}'];
    const keys = new Set<string>();
    for (const x of units) for (const y of ['', ...units]) keys.add(x + y);
    const byCodePoint = (a: string, b: string): number => {
      const x = Array.from(a, (c) => c.codePointAt(0)!);
      const y = Array.from(b, (c) => c.codePointAt(0)!);
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    };
    const expected = [...keys].sort(byCodePoint);
    const object = Object.fromEntries([...keys].reverse().map((key) => [key, 0]));
    expect(Object.keys(JSON.parse(canonicalJson(object)) as object)).toEqual(expected);
  });

  it('writes UTF-8 literally and never HTML-escapes', () => {
    expect(canonicalJson({ s: 'café <b>&</b> /' })).toBe('{"s":"café <b>&</b> /"}');
    expect(canonicalJsonBytes({ s: 'é' })).toEqual(Buffer.from('{"s":"é"}', 'utf8'));
  });

  it('escapes quotes, backslashes and control characters like Python json.dumps', () => {
    expect(canonicalJson('"\\\n\r\t\b\f\u0001\u001f')).toBe('"\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f"');
  });

  it('omits undefined members and keeps null', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });

  it('encodes 64 levels of nesting and refuses a 65th instead of recursing on', () => {
    const nest = (depth: number): unknown => (depth === 0 ? 1 : [nest(depth - 1)]);
    expect(canonicalJson(nest(64))).toBe(`${'['.repeat(64)}1${']'.repeat(64)}`);
    expect(() => canonicalJson(nest(65))).toThrow(/deeper than 64/);
    expect(() => canonicalJson({ a: nest(64) })).toThrow(/deeper than 64/);
  });

  it('refuses values with no single canonical form', () => {
    expect(() => canonicalJson({ n: 1.5 })).toThrow(/safe integers/);
    expect(() => canonicalJson({ n: 2 ** 60 })).toThrow(/safe integers/);
    expect(() => canonicalJson('\uD800')).toThrow(/surrogate/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function/);
  });
});
