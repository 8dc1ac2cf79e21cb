import { describe, expect, it } from 'vitest';
import { HeadBodies } from './head-bodies.ts';

const bytes = (n: number, fill = 'x') => Buffer.alloc(n, fill);

describe('HeadBodies', () => {
  it('answers only for the version it holds', () => {
    const heads = new HeadBodies(100);
    heads.set('d', 3, bytes(10));
    expect(heads.get('d', 3)?.length).toBe(10);
    expect(heads.get('d', 2)).toBeNull();
    expect(heads.get('other', 3)).toBeNull();
  });

  it("replaces a document's entry and keeps the byte count exact", () => {
    const heads = new HeadBodies(100);
    heads.set('d', 1, bytes(40));
    heads.set('d', 2, bytes(30));
    expect(heads.bytes).toBe(30);
    expect(heads.get('d', 1)).toBeNull();
  });

  it('drops the least recently used bodies past its byte limit, and never holds one larger than it', () => {
    const heads = new HeadBodies(100);
    heads.set('a', 1, bytes(40));
    heads.set('b', 1, bytes(40));
    heads.get('a', 1); // a is now the most recent
    heads.set('c', 1, bytes(40)); // evicts b
    expect(heads.get('b', 1)).toBeNull();
    expect(heads.get('a', 1)).not.toBeNull();
    expect(heads.bytes).toBe(80);
    heads.set('huge', 1, bytes(101));
    expect(heads.get('huge', 1)).toBeNull();
    expect(heads.bytes).toBe(80);
  });
});
