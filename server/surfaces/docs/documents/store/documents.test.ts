import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  countDocuments,
  documentUsage,
  findDocument,
  insertDocument,
  listDocuments,
  pageDocuments,
  setCurrentVersion,
  slugTaken,
  toDocumentSummary,
} from './documents.ts';
import { useStoreDatabase } from '../../../../../test/support/store-database.ts';

const db = useStoreDatabase();

/** A document of `team` created at `at` (ISO time), returning its id. */
function add(team: string, slug: string, title: string, at: string): string {
  const documentId = randomUUID();
  insertDocument(db(), { document_id: documentId, team_id: team, slug, title, created_at: at });
  return documentId;
}

describe('the documents store', () => {
  it('inserts a document at version 1 and finds it only in its own team', () => {
    const id = add('find:example.com', 'plan', 'Plan', '2026-01-01T00:00:00.000Z');
    const row = findDocument(db(), 'find:example.com', 'plan');
    expect(row).toEqual({
      document_id: id,
      team_id: 'find:example.com',
      slug: 'plan',
      title: 'Plan',
      current_version: 1,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    expect(toDocumentSummary(row!)).not.toHaveProperty('team_id');
    expect(findDocument(db(), 'other:example.com', 'plan')).toBeUndefined();
    expect(slugTaken(db(), 'find:example.com', 'plan')).toBe(true);
    expect(slugTaken(db(), 'other:example.com', 'plan')).toBe(false);
  });

  it('lists most recently changed first, then by slug, and matches q literally (LIKE wildcards escaped)', () => {
    const team = 'list:example.com';
    add(team, 'b-sale', '50% off', '2026-01-01T00:00:00.000Z');
    add(team, 'a-sale', '500 things', '2026-01-01T00:00:00.000Z');
    const later = add(team, 'under_score', 'Notes', '2026-01-01T00:00:00.000Z');
    setCurrentVersion(db(), later, 2, '2026-01-02T00:00:00.000Z');
    expect(listDocuments(db(), team, undefined).map((d) => d.slug)).toEqual(['under_score', 'a-sale', 'b-sale']);
    expect(listDocuments(db(), team, '50%').map((d) => d.slug)).toEqual(['b-sale']);
    expect(listDocuments(db(), team, 'r_s').map((d) => d.slug)).toEqual(['under_score']);
    expect(listDocuments(db(), team, '  SALE ').map((d) => d.slug)).toEqual(['a-sale', 'b-sale']);
    expect(countDocuments(db(), team)).toBe(3);
    expect(countDocuments(db(), team, '50%')).toBe(1);
  });

  it('pages after a bound, ties on updated_at continuing by slug', () => {
    const team = 'page:example.com';
    for (const slug of ['a', 'b', 'c']) add(team, slug, slug, '2026-02-01T00:00:00.000Z');
    add(team, 'z', 'z', '2026-01-01T00:00:00.000Z');
    expect(pageDocuments(db(), team, undefined, null, 2).map((d) => d.slug)).toEqual(['a', 'b']);
    expect(pageDocuments(db(), team, undefined, { updatedAt: '2026-02-01T00:00:00.000Z', slug: 'b' }, 2).map((d) => d.slug)).toEqual(['c', 'z']);
    // A bound outlives its row: a slug that is gone still bounds the page.
    expect(pageDocuments(db(), team, undefined, { updatedAt: '2026-02-01T00:00:00.000Z', slug: 'bb' }, 5).map((d) => d.slug)).toEqual(['c', 'z']);
    expect(pageDocuments(db(), team, 'z', null, 5).map((d) => d.slug)).toEqual(['z']);
  });

  it('reports usage: the count and the longest history, 0 for a team without documents', () => {
    const team = 'usage:example.com';
    expect(documentUsage(db(), team)).toEqual({ documents: 0, max_versions_per_doc: 0 });
    const id = add(team, 'one', 'One', '2026-01-01T00:00:00.000Z');
    add(team, 'two', 'Two', '2026-01-01T00:00:00.000Z');
    setCurrentVersion(db(), id, 7, '2026-01-03T00:00:00.000Z');
    expect(documentUsage(db(), team)).toEqual({ documents: 2, max_versions_per_doc: 7 });
    expect(findDocument(db(), team, 'one')).toMatchObject({
      current_version: 7,
      updated_at: '2026-01-03T00:00:00.000Z',
      created_at: '2026-01-01T00:00:00.000Z',
    });
  });
});
