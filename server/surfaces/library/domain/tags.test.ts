import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../errors.ts';
import { normalizeTags } from './tags.ts';

function detail(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'SVC_ERR_VALIDATION') return err.detail;
    throw err;
  }
  throw new Error('expected a 422');
}

describe('normalizeTags', () => {
  it('trims, lower-cases, drops empties, dedupes and sorts', () => {
    expect(normalizeTags(['  Coder ', 'twitter', 'CODER', '', '   ', 'github', 'a.b_c-d'])).toEqual(['a.b_c-d', 'coder', 'github', 'twitter']);
    // Spaces are spelling, as case is: "Shipping Tools" and shipping-tools are one tag.
    expect(normalizeTags(['Shipping Tools', 'shipping-tools', 'CI'])).toEqual(['ci', 'shipping-tools']);
    expect(normalizeTags([])).toEqual([]);
  });

  it('refuses characters outside [a-z0-9._-], naming the index', () => {
    expect(detail(() => normalizeTags(['ok', 'c++', 'émoji']))).toEqual([
      { loc: ['body', 'tags', 1], msg: 'tag "c++" may only use a-z, 0-9, ".", "_" and "-"', type: 'value_error' },
      { loc: ['body', 'tags', 2], msg: 'tag "émoji" may only use a-z, 0-9, ".", "_" and "-"', type: 'value_error' },
    ]);
  });

  it('refuses a tag longer than 64 characters', () => {
    expect(normalizeTags(['a'.repeat(64)])).toEqual(['a'.repeat(64)]);
    expect(detail(() => normalizeTags(['a'.repeat(65)], ['query', 'tags']))).toEqual([
      { loc: ['query', 'tags', 0], msg: 'tag must be at most 64 characters', type: 'value_error' },
    ]);
  });

  it('refuses more than 32 distinct tags, counting after dedupe', () => {
    const tags = Array.from({ length: 32 }, (_, i) => `t${i}`);
    expect(normalizeTags([...tags, ...tags.map((t) => t.toUpperCase())])).toHaveLength(32);
    expect(detail(() => normalizeTags([...tags, 'one-more']))).toEqual([{ loc: ['body', 'tags'], msg: 'at most 32 tags are allowed (got 33)', type: 'value_error' }]);
  });
});
