import { describe, expect, it } from 'vitest';
import { MemoCache } from './memo-cache.ts';

describe('MemoCache', () => {
  it('computes once per key', () => {
    const cache = new MemoCache<number>(4);
    let calls = 0;
    const compute = () => ++calls;
    expect(cache.get('a', compute)).toBe(1);
    expect(cache.get('a', compute)).toBe(1);
    expect(calls).toBe(1);
  });

  it('evicts the least recently used entry past its limit', () => {
    const cache = new MemoCache<string>(2);
    cache.get('a', () => 'a1');
    cache.get('b', () => 'b1');
    cache.get('a', () => 'a2'); // a is now the most recent
    cache.get('c', () => 'c1'); // evicts b
    expect(cache.size).toBe(2);
    expect(cache.get('a', () => 'a3')).toBe('a1');
    expect(cache.get('b', () => 'b2')).toBe('b2');
  });
});
