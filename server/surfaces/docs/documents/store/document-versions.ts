/**
 * The `document_versions` table: every document's append-only history, numbered 1..n, each
 * version a snapshot or a delta (domain/delta.ts) with the sha256 of its body and who made it.
 * The only module that reads or writes it.
 */
import type { ActingAs, DocumentVersion, VersionAuthorView, VersionSource } from '../../../../../contract/docs/documents.ts';
import type { TeamMember } from '../../../../auth/team-envelope.ts';
import type { Db } from '../../../../context.ts';
import { actingAsColumns, actingAsOfColumns } from '../../../../teams/acting-as-columns.ts';
import type { StoredVersion } from '../../domain/delta.ts';

/** Who made a version: a team member (API), possibly acting for an identity, or a human through an editable link. */
export interface VersionAuthor {
  member: TeamMember | null;
  editor_name?: string | null;
  acting_as?: ActingAs | null;
}

export interface VersionRow {
  document_id: string;
  version_number: number;
  version_id: string;
  kind: StoredVersion['kind'];
  prefix_len: number;
  suffix_len: number;
  payload: Buffer;
  compressed: number;
  body_bytes: number;
  body_sha256: string;
  source: VersionSource;
  created_by_did_key: string | null;
  created_by_did_aw: string | null;
  created_by_address: string | null;
  created_by_alias: string | null;
  certificate_id: string | null;
  created_by_editor_name: string | null;
  created_at: string;
  acting_as_agent_id: string | null;
  acting_as_alias: string | null;
  acting_as_name: string | null;
  acting_as_address: string | null;
}

/** What a version's listing shows: everything but its stored body. */
export type VersionMetadataRow = Omit<VersionRow, 'document_id' | 'kind' | 'prefix_len' | 'suffix_len' | 'payload' | 'compressed' | 'body_bytes'>;

/** What rebuilding a body reads of each version in its chain. */
export type ChainRow = Pick<VersionRow, 'kind' | 'prefix_len' | 'suffix_len' | 'payload' | 'compressed' | 'body_bytes' | 'body_sha256'>;

/** A version to append: its stored form (domain/delta.ts), its body's size and hash, and who made it. */
export interface NewVersion {
  document_id: string;
  version_number: number;
  version_id: string;
  stored: StoredVersion;
  body_bytes: number;
  body_sha256: string;
  source: VersionSource;
  author: VersionAuthor;
  created_at: string;
}

const METADATA_COLUMNS = `version_id, version_number, body_sha256, source, created_by_did_key, created_by_did_aw, created_by_address,
  created_by_alias, certificate_id, created_by_editor_name, created_at, acting_as_agent_id, acting_as_alias, acting_as_name, acting_as_address`;

const actingAsOfRow = (row: VersionMetadataRow): ActingAs | null =>
  actingAsOfColumns(row.acting_as_agent_id, row.acting_as_alias, row.acting_as_name, row.acting_as_address);

/** A link edit is the visitor's (never the minter's); an app save is the identity's; else the member's. */
function authorOf(row: VersionMetadataRow, actingAs: ActingAs | null): VersionAuthorView {
  if (row.source === 'present-link') return { kind: 'link-editor', name: row.created_by_editor_name, address: null };
  if (actingAs !== null) return { kind: 'identity', name: actingAs.name, address: actingAs.address };
  return { kind: 'member', name: row.created_by_alias, address: row.created_by_address };
}

/** The wire version: its metadata, who made it as a person reads it, and `body` when it was asked for. */
export function toDocumentVersion(row: VersionMetadataRow, body: string | null): DocumentVersion {
  const actingAs = actingAsOfRow(row);
  return {
    version_id: row.version_id,
    version_number: row.version_number,
    body,
    source: row.source,
    body_sha256: row.body_sha256,
    created_by_did_key: row.created_by_did_key,
    created_by_did_aw: row.created_by_did_aw,
    created_by_address: row.created_by_address,
    created_by_alias: row.created_by_alias,
    certificate_id: row.certificate_id,
    created_by_editor_name: row.created_by_editor_name,
    created_at: row.created_at,
    acting_as: actingAs,
    author: authorOf(row, actingAs),
  };
}

export const toStoredVersion = (row: ChainRow): StoredVersion => ({
  kind: row.kind,
  prefix_len: row.prefix_len,
  suffix_len: row.suffix_len,
  payload: row.payload,
  compressed: row.compressed === 1,
});

/** The document's history, newest first. */
export function listVersionMetadata(db: Db, documentId: string): VersionMetadataRow[] {
  return db
    .prepare(`SELECT ${METADATA_COLUMNS} FROM document_versions WHERE document_id = ? ORDER BY version_number DESC`)
    .all(documentId) as VersionMetadataRow[];
}

export function findVersionMetadata(db: Db, documentId: string, n: number): VersionMetadataRow | undefined {
  return db.prepare(`SELECT ${METADATA_COLUMNS} FROM document_versions WHERE document_id = ? AND version_number = ?`).get(documentId, n) as
    VersionMetadataRow | undefined;
}

/** Versions `from`..`to` in order: a snapshot and the deltas that lead from it to version `to`. */
export function versionChain(db: Db, documentId: string, from: number, to: number): ChainRow[] {
  return db
    .prepare(
      `SELECT kind, prefix_len, suffix_len, payload, compressed, body_bytes, body_sha256 FROM document_versions
       WHERE document_id = ? AND version_number BETWEEN ? AND ? ORDER BY version_number`,
    )
    .all(documentId, from, to) as ChainRow[];
}

export function insertVersion(db: Db, version: NewVersion): void {
  const { stored, author } = version;
  const member = author.member;
  db.prepare(
    `INSERT INTO document_versions (document_id, version_number, version_id, kind, prefix_len, suffix_len, payload, compressed, body_bytes,
       body_sha256, source, created_by_did_key, created_by_did_aw, created_by_address, created_by_alias, certificate_id,
       created_by_editor_name, created_at, acting_as_agent_id, acting_as_alias, acting_as_name, acting_as_address)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    version.document_id,
    version.version_number,
    version.version_id,
    stored.kind,
    stored.prefix_len,
    stored.suffix_len,
    stored.payload,
    stored.compressed ? 1 : 0,
    version.body_bytes,
    version.body_sha256,
    version.source,
    member?.did_key ?? null,
    member?.did_aw ?? null,
    member?.address ?? null,
    member?.alias ?? null,
    member?.certificate_id ?? null,
    author.editor_name ?? null,
    version.created_at,
    ...actingAsColumns(author.acting_as),
  );
}
