import { describe, expect, it } from 'vitest';
import { checkAppend, checkCreate, NO_CAPS, tierOf } from './caps.ts';

describe('document caps', () => {
  it('is active and unlimited without caps', () => {
    expect(tierOf(NO_CAPS)).toBe('active');
    expect(checkCreate(NO_CAPS, 1_000_000)).toBeNull();
    expect(checkAppend(NO_CAPS, 1_000_000)).toBeNull();
  });

  it('is free as soon as one cap is set', () => {
    expect(tierOf({ max_documents: 3, max_versions_per_doc: null })).toBe('free');
    expect(tierOf({ max_documents: null, max_versions_per_doc: 50 })).toBe('free');
  });

  it('refuses the document over the cap with the structured detail', () => {
    const caps = { max_documents: 3, max_versions_per_doc: 50 };
    expect(checkCreate(caps, 2)).toBeNull();
    expect(checkCreate(caps, 3)).toEqual({
      code: 'free_tier_limit_exceeded',
      limit: 'documents',
      current: 3,
      max: 3,
      subscriptions_available: false,
      message: expect.stringMatching(/3 documents per team/),
    });
  });

  it('refuses the version over the cap', () => {
    const caps = { max_documents: null, max_versions_per_doc: 2 };
    expect(checkAppend(caps, 1)).toBeNull();
    expect(checkAppend(caps, 2)).toMatchObject({ limit: 'versions_per_doc', current: 2, max: 2 });
    expect(checkCreate({ max_documents: null, max_versions_per_doc: 0 }, 0)).toMatchObject({ limit: 'versions_per_doc', max: 0 });
  });
});
