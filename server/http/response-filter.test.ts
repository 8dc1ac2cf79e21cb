/**
 * The declared part of an answer that does not parse keeps only what its schema names, through
 * every construct a response schema uses; the undeclared paths are the keys a parse dropped.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { declaredPart, undeclaredPaths } from './response-filter.ts';

describe('declaredPart', () => {
  it('keeps declared keys, in nested objects, arrays, tuples, wrappers, pipes and lazy schemas, values unchecked', () => {
    const Node = z.object({ id: z.number(), tail: z.lazy(() => z.object({ id: z.number() }).nullable()) });
    const schema = z.object({
      a: z.string(),
      list: z.array(z.object({ b: z.number() })),
      pair: z.tuple([z.object({ c: z.string() }), z.string()]),
      maybe: z.object({ d: z.string() }).nullable().optional().readonly(),
      piped: z.object({ e: z.string() }).pipe(z.object({ e: z.string() })),
      node: Node,
    });
    const value = {
      a: 1,
      x: 'secret',
      list: [{ b: 'drifted', x: 'secret' }],
      pair: [{ c: 'c', x: 'secret' }, 'plain', { x: 'secret' }],
      maybe: { d: 'd', x: 'secret' },
      piped: { e: 'e', x: 'secret' },
      node: { id: 1, x: 'secret', tail: { id: 2, x: 'secret' } },
    };
    expect(declaredPart(schema, value)).toEqual({
      a: 1,
      list: [{ b: 'drifted' }],
      pair: [{ c: 'c' }, 'plain', null],
      maybe: { d: 'd' },
      piped: { e: 'e' },
      node: { id: 1, tail: { id: 2 } },
    });
    expect(declaredPart(schema, { ...value, maybe: null })).toMatchObject({ maybe: null });
  });

  it('never lets an object or array through where a plain value is declared', () => {
    const schema = z.object({ name: z.string(), kind: z.enum(['a', 'b']), list: z.array(z.string()) });
    expect(declaredPart(schema, { name: { secret: 'x' }, kind: ['secret'], list: { secret: 'x' } })).toEqual({ name: null, kind: null, list: null });
  });

  it('keeps a union’s option that parses, else only keys some option declares', () => {
    const schema = z.union([z.object({ kind: z.literal('a'), a: z.string() }), z.object({ kind: z.literal('b'), b: z.string() })]);
    expect(declaredPart(schema, { kind: 'a', a: 'x', b: 'not this option’s', secret: 'x' })).toEqual({ kind: 'a', a: 'x' });
    expect(declaredPart(schema, { kind: 'c', a: 1, b: 2, secret: 'x' })).toEqual({ kind: 'c', a: 1, b: 2 });
    const both = z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() }));
    expect(declaredPart(both, { a: 'a', b: 'b', secret: 'x' })).toEqual({ a: 'a', b: 'b' });
  });

  it('keeps what a schema declares open: records’ keys (an enum-keyed record’s only), loose objects’ other keys, unknown values', () => {
    expect(declaredPart(z.record(z.string(), z.object({ n: z.number() })), { k: { n: 1, secret: 'x' } })).toEqual({ k: { n: 1 } });
    expect(declaredPart(z.record(z.enum(['light', 'dark']), z.string()), { light: '#fff', secret: 'x' })).toEqual({ light: '#fff' });
    expect(declaredPart(z.looseObject({ message: z.string() }), { message: 'm', more: 1 })).toEqual({ message: 'm', more: 1 });
    expect(declaredPart(z.object({ content: z.unknown() }), { content: { any: 'thing' }, secret: 'x' })).toEqual({ content: { any: 'thing' } });
    expect(declaredPart(z.strictObject({ a: z.string() }), { a: 'a', secret: 'x' })).toEqual({ a: 'a' });
  });
});

describe('undeclaredPaths', () => {
  it('names the keys a parse dropped, by path, through arrays', () => {
    const schema = z.object({ a: z.string(), list: z.array(z.object({ b: z.string() })), open: z.record(z.string(), z.string()) });
    const sent = { a: 'a', x: 1, list: [{ b: 'b' }, { b: 'b', y: 2 }], open: { any: 'key' }, gone: undefined };
    expect(undeclaredPaths(sent, schema.parse(sent))).toEqual(['x', 'list.1.y']);
    expect(undeclaredPaths({ a: 'a' }, { a: 'a' })).toEqual([]);
  });
});
