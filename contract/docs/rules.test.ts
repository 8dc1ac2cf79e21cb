import { describe, expect, it } from 'vitest';
import { SlugParams } from './documents.ts';
import { DOCUMENT_SLUG, documentSlugProblem, formatRatio, SLUG_MAX, SLUG_PATTERN, TEMPLATE_LIMITS } from './rules.ts';
import { TemplateLimits } from './templates.ts';

describe('the document slug', () => {
  it.each([
    ['a', true],
    ['Q3-update_v2.md', true],
    ['9lives', true],
    ['-dash', false],
    ['.hidden', false],
    ['has space', false],
    ['sl/ash', false],
    ['', false],
    ['x'.repeat(SLUG_MAX), true],
    ['x'.repeat(SLUG_MAX + 1), false],
  ])('%j: the forms’ one pattern and the node’s schema agree (%s)', (slug, ok) => {
    expect(DOCUMENT_SLUG.test(slug)).toBe(ok);
    expect(slug.length <= SLUG_MAX && SLUG_PATTERN.test(slug)).toBe(ok);
    expect(SlugParams.safeParse({ slug }).success).toBe(ok);
  });
});

describe('the rules the UI shows as the node words them', () => {
  it('formats a ratio rounded down, so 4.499 never reads as 4.50', () => {
    expect(formatRatio(4.499)).toBe('4.49');
    expect(formatRatio(21)).toBe('21.00');
  });

  it('describes every template limit in the discovery answer', () => {
    expect(TemplateLimits.parse(TEMPLATE_LIMITS)).toEqual(TEMPLATE_LIMITS);
    expect(Object.keys(TemplateLimits.shape).sort()).toEqual(Object.keys(TEMPLATE_LIMITS).sort());
  });
});

describe('documentSlugProblem', () => {
  it('says in words why a slug cannot be one, by the same pattern the node applies', () => {
    expect(documentSlugProblem('q3-update')).toBeNull();
    expect(documentSlugProblem('x'.repeat(160))).toBeNull();
    expect(documentSlugProblem('')).toBe('enter a slug, for example q3-update');
    expect(documentSlugProblem('x'.repeat(161))).toBe('use at most 160 characters (this one has 161)');
    expect(documentSlugProblem('Q3 update')).toBe('use letters, digits, ".", "-" or "_", starting with a letter or digit (no spaces)');
    for (const slug of ['a', 'a.b', '-a', 'a b', 'x'.repeat(161)]) expect(documentSlugProblem(slug) === null, slug).toBe(DOCUMENT_SLUG.test(slug));
  });
});
