/** Documents found by a search (every version indexed, bm25-ranked), and the index's one writer of document versions. */
import type { Db } from '../../context.ts';
import { timeClause, TITLED_WEIGHTS, type TimeFilter } from './walk.ts';

export interface DocumentCandidate {
  entry_id: number;
  score: number;
  created_at: string;
  document_id: string;
  version_number: number;
  current_version: number;
}

export interface DocumentMeta {
  document_id: string;
  team_id: string;
  slug: string;
  title: string;
}

export function documentCandidates(db: Db, match: string, filter: TimeFilter, window: number): DocumentCandidate[] {
  return db
    .prepare(
      `SELECT e.entry_id, bm25(search_documents, ${TITLED_WEIGHTS}) AS score, e.created_at, e.document_id, e.version_number, d.current_version
         FROM search_documents
         JOIN search_document_versions e ON e.entry_id = search_documents.rowid
         JOIN documents d ON d.document_id = e.document_id
        WHERE search_documents MATCH @match AND ${timeClause('e.created_at')}
        ORDER BY search_documents.rowid DESC
        LIMIT +@window`,
    )
    .all({ match, after: filter.after, before: filter.before, window }) as DocumentCandidate[];
}

export function documentMeta(db: Db, documentIds: readonly string[]): DocumentMeta[] {
  if (documentIds.length === 0) return [];
  return db
    .prepare(`SELECT document_id, team_id, slug, title FROM documents WHERE document_id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(documentIds)) as DocumentMeta[];
}

/** Indexes one version of a document (replacing what was indexed for it). */
export function indexDocumentVersion(
  db: Db,
  entry: { documentId: string; version: number; createdAt: string; scope: string; title: string; body: string },
): void {
  const entryId = db
    .prepare(
      `INSERT INTO search_document_versions (document_id, version_number, created_at) VALUES (?, ?, ?)
       ON CONFLICT (document_id, version_number) DO UPDATE SET created_at = excluded.created_at
       RETURNING entry_id`,
    )
    .pluck()
    .get(entry.documentId, entry.version, entry.createdAt) as number;
  db.prepare(`INSERT OR REPLACE INTO search_documents (rowid, scope, title, body) VALUES (?, ?, ?, ?)`).run(entryId, entry.scope, entry.title, entry.body);
}
