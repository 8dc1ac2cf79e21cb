/**
 * The `documents` table: one row per team document, unique per (team, slug), pointing at its
 * latest version. The only module that reads or writes it; other stores may join it. The row's
 * `body` column is left empty since migration 0009 (bodies live in the version chain).
 */
import type { DocumentSummary } from '../../../../../contract/docs/documents.ts';
import type { Db } from '../../../../context.ts';

/** A document row, without its (always empty) body column. */
export interface DocumentRow extends DocumentSummary {
  team_id: string;
}

export interface NewDocumentRow {
  document_id: string;
  team_id: string;
  slug: string;
  title: string;
  created_at: string;
}

/** Where a page starts: after the row at (`updatedAt`, `slug`) in the listing order. */
export interface PageBound {
  updatedAt: string;
  slug: string;
}

const SUMMARY_COLUMNS = 'document_id, slug, title, current_version, updated_at, created_at';

/** A case-insensitive substring match on title or slug (LIKE with its wildcards escaped). */
function matchClause(q: string | undefined): { sql: string; args: string[] } {
  const needle = q?.trim() ?? '';
  if (needle === '') return { sql: '', args: [] };
  const pattern = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return { sql: `AND (title LIKE ? ESCAPE '\\' OR slug LIKE ? ESCAPE '\\')`, args: [pattern, pattern] };
}

/** The wire summary of a row (its team left out). */
export const toDocumentSummary = (row: DocumentSummary): DocumentSummary => ({
  document_id: row.document_id,
  slug: row.slug,
  title: row.title,
  current_version: row.current_version,
  updated_at: row.updated_at,
  created_at: row.created_at,
});

/** The team's document with this slug. */
export function findDocument(db: Db, teamId: string, slug: string): DocumentRow | undefined {
  return db.prepare(`SELECT ${SUMMARY_COLUMNS}, team_id FROM documents WHERE team_id = ? AND slug = ?`).get(teamId, slug) as DocumentRow | undefined;
}

export function slugTaken(db: Db, teamId: string, slug: string): boolean {
  return db.prepare(`SELECT 1 FROM documents WHERE team_id = ? AND slug = ?`).get(teamId, slug) !== undefined;
}

/** Every matching document, most recently changed first (then by slug); `q` as in matchClause. */
export function listDocuments(db: Db, teamId: string, q: string | undefined): DocumentSummary[] {
  const match = matchClause(q);
  return db
    .prepare(`SELECT ${SUMMARY_COLUMNS} FROM documents WHERE team_id = ? ${match.sql} ORDER BY updated_at DESC, slug`)
    .all(teamId, ...match.args) as DocumentSummary[];
}

/**
 * Up to `limit` matching documents in the listing order, after `bound` when given, read by key
 * from the (team_id, updated_at, slug) index (`LIMIT +?` keeps the planner from sorting instead).
 */
export function pageDocuments(db: Db, teamId: string, q: string | undefined, bound: PageBound | null, limit: number): DocumentSummary[] {
  const match = matchClause(q);
  const boundSql = bound === null ? '' : `AND updated_at <= ? AND (updated_at < ? OR slug > ?)`;
  const boundArgs = bound === null ? [] : [bound.updatedAt, bound.updatedAt, bound.slug];
  return db
    .prepare(`SELECT ${SUMMARY_COLUMNS} FROM documents WHERE team_id = ? ${match.sql} ${boundSql} ORDER BY updated_at DESC, slug LIMIT +?`)
    .all(teamId, ...match.args, ...boundArgs, limit) as DocumentSummary[];
}

/** How many of the team's documents match `q` (all of them without one). */
export function countDocuments(db: Db, teamId: string, q?: string): number {
  const match = matchClause(q);
  return db
    .prepare(`SELECT count(*) FROM documents WHERE team_id = ? ${match.sql}`)
    .pluck()
    .get(teamId, ...match.args) as number;
}

/** The team's document count and its longest history (0 without documents). */
export function documentUsage(db: Db, teamId: string): { documents: number; max_versions_per_doc: number } {
  return db.prepare(`SELECT count(*) AS documents, coalesce(max(current_version), 0) AS max_versions_per_doc FROM documents WHERE team_id = ?`).get(teamId) as {
    documents: number;
    max_versions_per_doc: number;
  };
}

/** A new document at version 1 (whose version row the caller inserts in the same transaction). */
export function insertDocument(db: Db, row: NewDocumentRow): void {
  db.prepare(`INSERT INTO documents (document_id, team_id, slug, title, body, current_version, created_at, updated_at) VALUES (?, ?, ?, ?, X'', 1, ?, ?)`).run(
    row.document_id,
    row.team_id,
    row.slug,
    row.title,
    row.created_at,
    row.created_at,
  );
}

/** Points the document at its new latest version. */
export function setCurrentVersion(db: Db, documentId: string, version: number, updatedAt: string): void {
  db.prepare(`UPDATE documents SET current_version = ?, updated_at = ? WHERE document_id = ?`).run(version, updatedAt, documentId);
}
