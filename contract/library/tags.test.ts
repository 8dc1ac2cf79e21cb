/**
 * Tags are read once, by the contract's schemas, for every route that takes them (a body's set,
 * the catalog's filter) and for the shipped samples: the spelling, the refusals and where each
 * refusal points are the same wherever tags arrive.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CatalogQuery } from './catalog.ts';
import { TagsBody, TagSet } from './common.ts';
import { CreateProfileBody } from './profiles.ts';

function problems(schema: z.ZodType, value: unknown) {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected a refusal');
  return result.error.issues.map((issue) => ({ path: issue.path, message: issue.message }));
}

describe('tags', () => {
  it('are trimmed, lower-cased, without empties and duplicates, sorted', () => {
    expect(TagsBody.parse({ tags: ['  Coder ', 'twitter', 'CODER', '', '   ', 'github', 'a.b_c-d'] }).tags).toEqual(['a.b_c-d', 'coder', 'github', 'twitter']);
    // Spaces are spelling, as case is: "Shipping Tools" and shipping-tools are one tag.
    expect(TagsBody.parse({ tags: ['Shipping Tools', 'shipping-tools', 'CI'] }).tags).toEqual(['ci', 'shipping-tools']);
    expect(TagsBody.parse({ tags: [] }).tags).toEqual([]);
    // Where a set is optional, each entry is still read by the one rule.
    expect(CreateProfileBody.parse({ files: [{ path: 'profile.yaml', content_utf8: '' }], tags: ['B', 'a'] }).tags).toEqual(['a', 'b']);
  });

  it('refuses characters outside [a-z0-9._-], each at its own index', () => {
    expect(problems(TagsBody, { tags: ['ok', 'c++', 'émoji'] })).toEqual([
      { path: ['tags', 1], message: 'tag "c++" may only use a-z, 0-9, ".", "_" and "-"' },
      { path: ['tags', 2], message: 'tag "émoji" may only use a-z, 0-9, ".", "_" and "-"' },
    ]);
  });

  it('refuses a tag longer than 64 characters, in the catalog filter as in a body', () => {
    expect(TagsBody.parse({ tags: ['a'.repeat(64)] }).tags).toEqual(['a'.repeat(64)]);
    expect(problems(CatalogQuery, { tags: `ok,${'a'.repeat(65)}` })).toEqual([{ path: ['tags', 1], message: 'tag must be at most 64 characters' }]);
  });

  it('reads the catalog filter repeated or comma-separated, spelled as tags are kept', () => {
    expect(CatalogQuery.parse({ tags: ['CODER', 'github,Code Review'] }).tags).toEqual(['code-review', 'coder', 'github']);
    expect(CatalogQuery.parse({}).tags).toEqual([]);
  });

  it('refuses more than 32 distinct tags, counting after dedupe', () => {
    const tags = Array.from({ length: 32 }, (_, i) => `t${i}`);
    expect(TagSet.parse([...tags, ...tags.map((t) => t.toUpperCase())])).toHaveLength(32);
    expect(problems(TagSet, [...tags, 'one-more'])).toEqual([{ path: [], message: 'at most 32 tags are allowed (got 33)' }]);
  });
});
