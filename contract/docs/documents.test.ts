/**
 * The documents' request rules that span fields are the schemas' own, so a route only parses,
 * calls and answers: exactly one of body or template, and `after` only with `limit`.
 */
import { describe, expect, it } from 'vitest';
import { CreateDocumentBody, DocumentListQuery } from './documents.ts';

const refusals = (result: { error?: { issues: { path: PropertyKey[]; message: string }[] } | undefined }) =>
  result.error?.issues.map((issue) => ({ path: issue.path, message: issue.message })) ?? [];

describe('CreateDocumentBody', () => {
  it('takes exactly one of body or template, an empty body counting as one', () => {
    expect(CreateDocumentBody.parse({ slug: 'a', title: 'A', body: '' })).toEqual({ slug: 'a', title: 'A', body: '' });
    expect(CreateDocumentBody.parse({ slug: 'a', title: 'A', template: { name: 'memo' } }).template?.name).toBe('memo');
    const exactlyOne = [{ path: [], message: 'Provide exactly one of body or template' }];
    expect(refusals(CreateDocumentBody.safeParse({ slug: 'a', title: 'A' }))).toEqual(exactlyOne);
    expect(refusals(CreateDocumentBody.safeParse({ slug: 'a', title: 'A', body: '', template: { name: 'memo' } }))).toEqual(exactlyOne);
  });
});

describe('DocumentListQuery', () => {
  it('takes after only with limit: after pages a listing', () => {
    const after = '2026-01-01T00:00:00.000Z/notes';
    expect(DocumentListQuery.parse({ limit: '5', after })).toEqual({ limit: 5, after });
    expect(refusals(DocumentListQuery.safeParse({ after }))).toEqual([{ path: ['after'], message: 'after pages a listing: give limit too' }]);
  });
});
