/**
 * Team documents and their append-only versions (research B1, B2). Bodies are UTF-8 Markdown
 * bytes, stored as snapshots and deltas (domain/delta.ts), each version with the sha256 of its
 * body, verified whenever a version is rebuilt. The current body is held in memory
 * (head-bodies.ts), so an append writes one small delta row and never a whole copy. Every
 * committed version is announced as `docs/doc.changed`.
 */
import { randomUUID } from 'node:crypto';
import type {
  ActingAs,
  DocumentDetail,
  DocumentListInput,
  DocumentPage,
  DocumentSummary,
  DocumentVersion,
  VersionAuthorView,
  VersionSource,
} from '../../../contract/docs/documents.ts';
import type { TeamMember } from '../../auth/team-envelope.ts';
import type { NodeContext } from '../../context.ts';
import { docsTopic } from '../../events/bus.ts';
import { bodySha256Hex, sha256Hex } from '../../crypto/encoding.ts';
import { conflict, notFound, paymentRequired } from '../../errors.ts';
import type { CoreServices } from '../core/services.ts';
import type { DocsBilling } from './billing.ts';
import { checkAppend, checkCreate } from './domain/caps.ts';
import { encodeVersion, reconstruct, snapshotVersionFor, type StoredVersion } from './domain/delta.ts';
import { HeadBodies } from './head-bodies.ts';

// What the routes answer (documents, versions, pages) is the contract's: contract/docs/documents.ts.
export type { VersionSource };

interface DocumentRow extends DocumentSummary {
  team_id: string;
}

interface VersionRow {
  version_id: string;
  version_number: number;
  kind: 'snapshot' | 'delta';
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

/** Who made a version: a team member (API), possibly acting for an identity, or a human through an editable link. */
export interface VersionAuthor {
  member: TeamMember | null;
  editor_name?: string | null;
  acting_as?: ActingAs | null;
}

const SUMMARY_COLUMNS = 'document_id, slug, title, current_version, updated_at, created_at';
const METADATA_COLUMNS = `version_id, version_number, body_sha256, source, created_by_did_key, created_by_did_aw, created_by_address,
  created_by_alias, certificate_id, created_by_editor_name, created_at, acting_as_agent_id, acting_as_alias, acting_as_name, acting_as_address`;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

type MetadataRow = Omit<VersionRow, 'kind' | 'prefix_len' | 'suffix_len' | 'payload' | 'compressed' | 'body_bytes'>;

function actingAsOfRow(row: MetadataRow): ActingAs | null {
  if (row.acting_as_agent_id === null) return null;
  return { agent_id: row.acting_as_agent_id, alias: row.acting_as_alias ?? '', name: row.acting_as_name ?? row.acting_as_alias ?? '', address: row.acting_as_address };
}

/** A link edit is the visitor's (never the minter's); an app save is the identity's; else the member's. */
function authorOf(row: MetadataRow, actingAs: ActingAs | null): VersionAuthorView {
  if (row.source === 'present-link') return { kind: 'link-editor', name: row.created_by_editor_name, address: null };
  if (actingAs !== null) return { kind: 'identity', name: actingAs.name, address: actingAs.address };
  return { kind: 'member', name: row.created_by_alias, address: row.created_by_address };
}

function versionView(row: MetadataRow, body: string | null): DocumentVersion {
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

const summaryOf = (row: DocumentSummary): DocumentSummary => ({
  document_id: row.document_id,
  slug: row.slug,
  title: row.title,
  current_version: row.current_version,
  updated_at: row.updated_at,
  created_at: row.created_at,
});

/** A page's query: `limit` given, `after` a previous page's `next_after` (CURSOR_PATTERN, checked by the route). */
export type DocumentPageQuery = DocumentListInput & { limit: number };

/** `<updated_at>/<slug>`: slugs never hold "/", so the last one splits it. */
function parseCursor(after: string): { updatedAt: string; slug: string } {
  const cut = after.lastIndexOf('/');
  return { updatedAt: after.slice(0, cut), slug: after.slice(cut + 1) };
}

/** A case-insensitive substring match on title or slug (LIKE with its wildcards escaped). */
function matchClause(q: string | undefined): { sql: string; args: string[] } {
  const needle = q?.trim() ?? '';
  if (needle === '') return { sql: '', args: [] };
  const pattern = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return { sql: `AND (title LIKE ? ESCAPE '\\' OR slug LIKE ? ESCAPE '\\')`, args: [pattern, pattern] };
}

/** Current bodies held in memory: a few dozen large documents, or many small ones. */
const HEAD_CACHE_BYTES = 64 * 1024 * 1024;

export class Documents {
  readonly #ctx: NodeContext;
  readonly #billing: DocsBilling;
  readonly #events: CoreServices['appEvents'];
  readonly #heads = new HeadBodies(HEAD_CACHE_BYTES);

  constructor(ctx: NodeContext, billing: DocsBilling, events: CoreServices['appEvents']) {
    this.#ctx = ctx;
    this.#billing = billing;
    this.#events = events;
  }

  /** Every document, most recently changed first; `q` keeps those whose title or slug contains it. */
  list(teamId: string, q?: string): DocumentSummary[] {
    const match = matchClause(q);
    return this.#ctx.db
      .prepare(`SELECT ${SUMMARY_COLUMNS} FROM documents WHERE team_id = ? ${match.sql} ORDER BY updated_at DESC, slug`)
      .all(teamId, ...match.args) as DocumentSummary[];
  }

  /**
   * Ours (issue 14): one page of the same order, by key from the (team_id, updated_at, slug)
   * index, so the app never reads 100,000 rows to show twenty. `after` is the previous page's
   * `next_after` (`<updated_at>/<slug>`), a bound rather than a lookup, so it outlives its
   * document. `total` counts every match (an index count; with `q`, a scan of titles and slugs).
   */
  page(teamId: string, page: DocumentPageQuery): DocumentPage {
    const { db } = this.#ctx;
    const match = matchClause(page.q);
    const cursor = page.after === undefined ? null : parseCursor(page.after);
    const bound = cursor === null ? '' : `AND updated_at <= ? AND (updated_at < ? OR slug > ?)`;
    const boundArgs = cursor === null ? [] : [cursor.updatedAt, cursor.updatedAt, cursor.slug];
    const rows = db
      .prepare(`SELECT ${SUMMARY_COLUMNS} FROM documents WHERE team_id = ? ${match.sql} ${bound} ORDER BY updated_at DESC, slug LIMIT +?`)
      .all(teamId, ...match.args, ...boundArgs, page.limit + 1) as DocumentSummary[];
    const hasMore = rows.length > page.limit;
    const shown = hasMore ? rows.slice(0, page.limit) : rows;
    const total = db.prepare(`SELECT count(*) FROM documents WHERE team_id = ? ${match.sql}`).pluck().get(teamId, ...match.args) as number;
    const last = shown.at(-1);
    return { documents: shown.map(summaryOf), has_more: hasMore, next_after: hasMore && last ? `${last.updated_at}/${last.slug}` : null, total };
  }

  get(teamId: string, slug: string): DocumentDetail {
    return this.#response(this.#document(teamId, slug));
  }

  /** The history, newest first, metadata only. */
  versions(teamId: string, slug: string): DocumentVersion[] {
    const doc = this.#document(teamId, slug);
    const rows = this.#ctx.db
      .prepare(`SELECT ${METADATA_COLUMNS} FROM document_versions WHERE document_id = ? ORDER BY version_number DESC`)
      .all(doc.document_id) as VersionRow[];
    return rows.map((row) => versionView(row, null));
  }

  /** One version with its body (research C7): its snapshot plus at most 63 deltas, checked against its sha256. */
  version(teamId: string, slug: string, n: number): DocumentVersion {
    const doc = this.#document(teamId, slug);
    if (!Number.isSafeInteger(n) || n < 1 || n > doc.current_version) throw notFound(`Document ${slug} has no version ${n}`);
    const body = n === doc.current_version ? this.#head(doc) : this.#rebuild(doc.document_id, n);
    return versionView(this.#metadata(doc.document_id, n), decoder.decode(body));
  }

  create(teamId: string, input: { slug: string; title: string; body: Buffer; source: VersionSource }, author: VersionAuthor): DocumentDetail {
    const { db, clock } = this.#ctx;
    const now = clock.now().toISOString();
    const documentId = randomUUID();
    db.transaction(() => {
      const exists = db.prepare(`SELECT 1 FROM documents WHERE team_id = ? AND slug = ?`).get(teamId, input.slug);
      if (exists) throw conflict(`A document with slug ${input.slug} already exists`);
      const count = db.prepare(`SELECT count(*) FROM documents WHERE team_id = ?`).pluck().get(teamId) as number;
      const over = checkCreate(this.#billing.caps(), count);
      if (over) throw paymentRequired(over);
      db.prepare(
        `INSERT INTO documents (document_id, team_id, slug, title, body, current_version, created_at, updated_at) VALUES (?, ?, ?, ?, X'', 1, ?, ?)`,
      ).run(documentId, teamId, input.slug, input.title, now, now);
      this.#insertVersion(documentId, 1, null, input.body, input.source, author, now);
    })();
    this.#heads.set(documentId, 1, input.body);
    this.#announce(teamId, input.slug, 1, input.source);
    return this.get(teamId, input.slug);
  }

  /** A new version; needs only the current body, never the history. */
  append(teamId: string, slug: string, body: Buffer, source: VersionSource, author: VersionAuthor): DocumentDetail {
    const { db, clock } = this.#ctx;
    const now = clock.now().toISOString();
    const doc = db.transaction(() => {
      const current = this.#document(teamId, slug);
      const over = checkAppend(this.#billing.caps(), current.current_version);
      if (over) throw paymentRequired(over);
      const next = current.current_version + 1;
      this.#insertVersion(current.document_id, next, this.#head(current), body, source, author, now);
      db.prepare(`UPDATE documents SET current_version = ?, updated_at = ? WHERE document_id = ?`).run(next, now, current.document_id);
      return { ...current, current_version: next, updated_at: now };
    })();
    // Only once the version has committed does it become the head.
    this.#heads.set(doc.document_id, doc.current_version, body);
    this.#announce(teamId, slug, doc.current_version, source);
    return this.#response(doc);
  }

  /** The current body: held in memory, or rebuilt from the version chain and then held. */
  #head(doc: DocumentRow): Buffer {
    const held = this.#heads.get(doc.document_id, doc.current_version);
    if (held) return held;
    const body = this.#rebuild(doc.document_id, doc.current_version);
    this.#heads.set(doc.document_id, doc.current_version, body);
    return body;
  }

  /** Version `n`'s body: its snapshot plus at most 63 deltas, checked against its sha256. */
  #rebuild(documentId: string, n: number): Buffer {
    const rows = this.#ctx.db
      .prepare(
        `SELECT kind, prefix_len, suffix_len, payload, compressed, body_bytes, body_sha256 FROM document_versions
         WHERE document_id = ? AND version_number BETWEEN ? AND ? ORDER BY version_number`,
      )
      .all(documentId, snapshotVersionFor(n), n) as VersionRow[];
    const chain: StoredVersion[] = rows.map((row) => ({
      kind: row.kind,
      prefix_len: row.prefix_len,
      suffix_len: row.suffix_len,
      payload: row.payload,
      compressed: row.compressed === 1,
    }));
    const target = rows[rows.length - 1]!;
    const body = reconstruct(chain);
    if (body.length !== target.body_bytes || sha256Hex(body) !== target.body_sha256) {
      throw new Error(`Stored history of document ${documentId} is corrupt at version ${n} (sha256 mismatch)`);
    }
    return body;
  }

  #metadata(documentId: string, n: number): VersionRow {
    return this.#ctx.db
      .prepare(`SELECT ${METADATA_COLUMNS} FROM document_versions WHERE document_id = ? AND version_number = ?`)
      .get(documentId, n) as VersionRow;
  }

  #insertVersion(documentId: string, n: number, previous: Buffer | null, body: Buffer, source: VersionSource, author: VersionAuthor, now: string): void {
    const stored = encodeVersion(n, previous, body);
    const member = author.member;
    this.#ctx.db
      .prepare(
        `INSERT INTO document_versions (document_id, version_number, version_id, kind, prefix_len, suffix_len, payload, compressed, body_bytes,
           body_sha256, source, created_by_did_key, created_by_did_aw, created_by_address, created_by_alias, certificate_id,
           created_by_editor_name, created_at, acting_as_agent_id, acting_as_alias, acting_as_name, acting_as_address)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        documentId,
        n,
        randomUUID(),
        stored.kind,
        stored.prefix_len,
        stored.suffix_len,
        stored.payload,
        stored.compressed ? 1 : 0,
        body.length,
        bodySha256Hex(body),
        source,
        member?.did_key ?? null,
        member?.did_aw ?? null,
        member?.address ?? null,
        member?.alias ?? null,
        member?.certificate_id ?? null,
        author.editor_name ?? null,
        now,
        author.acting_as?.agent_id ?? null,
        author.acting_as?.alias ?? null,
        author.acting_as?.name ?? null,
        author.acting_as?.address ?? null,
      );
  }

  #announce(teamId: string, slug: string, version: number, source: VersionSource): void {
    this.#events.emit(teamId, { type: 'docs/doc.changed', resource_ref: slug, payload: { slug, version, source } });
    this.#ctx.bus.publish(docsTopic(teamId));
  }

  #document(teamId: string, slug: string): DocumentRow {
    const row = this.#ctx.db
      .prepare(`SELECT ${SUMMARY_COLUMNS}, team_id FROM documents WHERE team_id = ? AND slug = ?`)
      .get(teamId, slug) as DocumentRow | undefined;
    // Another team's document is as absent as one that never existed.
    if (!row) throw notFound(`No document ${slug}`);
    return row;
  }

  #response(doc: DocumentRow): DocumentDetail {
    const latest = this.#metadata(doc.document_id, doc.current_version);
    return { ...summaryOf(doc), body: decoder.decode(this.#head(doc)), latest: versionView(latest, null) };
  }
}

/** The UTF-8 text of raw bytes, or null when they are not valid UTF-8. */
export function decodeUtf8(bytes: Buffer): string | null {
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}
