/**
 * Documents keep their bodies compressed in version chains (snapshots and deltas) that SQL cannot
 * read, so no trigger can index them: the documents service calls this for every version it
 * writes, inside the transaction that writes it, and the backfill for versions written before the
 * index existed. Every version is indexed; search ranks older ones lower and shows one only when
 * the current version does not match.
 */
import type { Db } from '../context.ts';
import { teamScope } from './scope.ts';
import { indexDocumentVersion } from './store/documents.ts';

export interface IndexedVersion {
  documentId: string;
  teamId: string;
  slug: string;
  title: string;
  version: number;
  createdAt: string;
  body: Buffer;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

export function indexDocument(db: Db, version: IndexedVersion): void {
  indexDocumentVersion(db, {
    documentId: version.documentId,
    version: version.version,
    createdAt: version.createdAt,
    scope: teamScope(version.teamId),
    // The slug is part of the title column: `status-report` is found by "status report".
    title: `${version.title} ${version.slug}`,
    body: decoder.decode(version.body),
  });
}
