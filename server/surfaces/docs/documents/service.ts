/**
 * Team documents and their append-only versions (docs/adr/0006-library-and-document-surfaces.md).
 * Bodies are UTF-8 Markdown bytes, stored as snapshots and deltas (domain/delta.ts), each version
 * with the sha256 of its body, verified whenever a version is rebuilt. The current body is held in
 * memory (head-bodies.ts), so an append writes one small delta row and never a whole copy. Every
 * committed version is announced as `docs/doc.changed`.
 */
import { randomUUID } from 'node:crypto';
import type {
  CreateDocumentRequest,
  DocumentDetail,
  DocumentListInput,
  DocumentPage,
  DocumentSaved,
  DocumentSummary,
  DocumentVersion,
  VersionSource,
} from '../../../../contract/docs/documents.ts';
import type { TemplateRequest } from '../../../../contract/docs/templates.ts';
import type { NodeContext } from '../../../context.ts';
import { docsTopic } from '../../../events/bus.ts';
import { bodySha256Hex, sha256Hex } from '../../../crypto/encoding.ts';
import { conflict, notFound, paymentRequired } from '../../../errors.ts';
import type { DocumentHistory } from '../../../search/backfill.ts';
import { indexDocument } from '../../../search/documents-index.ts';
import type { CoreServices } from '../../core/services.ts';
import type { DocsBilling } from '../billing/service.ts';
import { checkAppend, checkCreate } from '../domain/caps.ts';
import { encodeVersion, reconstruct, snapshotVersionFor } from '../domain/delta.ts';
import { renderTemplate } from '../domain/templates.ts';
import { HeadBodies } from './head-bodies.ts';
import {
  findVersionMetadata,
  insertVersion,
  listVersionMetadata,
  toDocumentVersion,
  toStoredVersion,
  versionChain,
  type VersionAuthor,
  type VersionMetadataRow,
} from './store/document-versions.ts';
import {
  countDocuments,
  findDocument,
  insertDocument,
  listDocuments,
  pageDocuments,
  setCurrentVersion,
  slugTaken,
  toDocumentSummary,
  type DocumentRow,
  type PageBound,
} from './store/documents.ts';

// What the routes answer (documents, versions, pages) is the contract's: contract/docs/documents.ts.

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A page's query: `limit` given, `after` a previous page's `next_after` (CURSOR_PATTERN, checked by the route). */
export type DocumentPageQuery = DocumentListInput & { limit: number };

/** `<updated_at>/<slug>`: slugs never hold "/", so the last one splits it. */
function parseCursor(after: string): PageBound {
  const cut = after.lastIndexOf('/');
  return { updatedAt: after.slice(0, cut), slug: after.slice(cut + 1) };
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
    return listDocuments(this.#ctx.db, teamId, q);
  }

  /**
   * Ours: one page of the same order, by key from the (team_id, updated_at, slug)
   * index, so the app never reads 100,000 rows to show twenty. `after` is the previous page's
   * `next_after` (`<updated_at>/<slug>`), a bound rather than a lookup, so it outlives its
   * document. `total` counts every match (an index count; with `q`, a scan of titles and slugs).
   */
  page(teamId: string, page: DocumentPageQuery): DocumentPage {
    const { db } = this.#ctx;
    const bound = page.after === undefined ? null : parseCursor(page.after);
    const rows = pageDocuments(db, teamId, page.q, bound, page.limit + 1);
    const hasMore = rows.length > page.limit;
    const shown = hasMore ? rows.slice(0, page.limit) : rows;
    const total = countDocuments(db, teamId, page.q);
    const last = shown.at(-1);
    return { documents: shown.map(toDocumentSummary), has_more: hasMore, next_after: hasMore && last ? `${last.updated_at}/${last.slug}` : null, total };
  }

  get(teamId: string, slug: string): DocumentDetail {
    return this.#response(this.#document(teamId, slug));
  }

  /** The history, newest first, metadata only. */
  versions(teamId: string, slug: string): DocumentVersion[] {
    const doc = this.#document(teamId, slug);
    return listVersionMetadata(this.#ctx.db, doc.document_id).map((row) => toDocumentVersion(row, null));
  }

  /**
   * One version with its body (ours: upstream serves only the latest body): its snapshot plus at
   * most 63 deltas, checked against its sha256.
   */
  version(teamId: string, slug: string, n: number): DocumentVersion {
    const doc = this.#document(teamId, slug);
    if (!Number.isSafeInteger(n) || n < 1 || n > doc.current_version)
      throw notFound('SVC_ERR_DOCUMENT_VERSION_NOT_FOUND', `Document ${slug} has no version ${n}`);
    const body = n === doc.current_version ? this.#head(doc) : this.#rebuild(doc.document_id, n);
    return toDocumentVersion(this.#metadata(doc.document_id, n), decoder.decode(body));
  }

  create(teamId: string, input: { slug: string; title: string; body: Buffer; source: VersionSource }, author: VersionAuthor): DocumentDetail {
    const { db, clock } = this.#ctx;
    const now = clock.now().toISOString();
    const documentId = randomUUID();
    db.transaction(() => {
      if (slugTaken(db, teamId, input.slug)) throw conflict('SVC_ERR_DOCUMENT_SLUG_TAKEN', `A document with slug ${input.slug} already exists`);
      const over = checkCreate(this.#billing.caps(), countDocuments(db, teamId));
      if (over) throw paymentRequired('SVC_ERR_FREE_TIER_LIMIT', over);
      insertDocument(db, { document_id: documentId, team_id: teamId, slug: input.slug, title: input.title, created_at: now });
      this.#insertVersion({ document_id: documentId, team_id: teamId, slug: input.slug, title: input.title }, 1, null, input.body, input.source, author, now);
    })();
    this.#heads.set(documentId, 1, input.body);
    this.#announce(teamId, input.slug, 1, input.source);
    return this.get(teamId, input.slug);
  }

  /**
   * A new version; needs only the current body, never the history. A body byte for byte the
   * current one's makes no version (`unchanged`, nothing announced): saving nothing new is not a
   * change. With `baseVersion` (the version the text was written over), a save over an older one
   * is refused with the latest in the 409's detail, so a change made meanwhile is never replaced
   * unseen; check and append run in one transaction.
   */
  /** A document as `POST /v1/documents` asks for it: its raw Markdown, or its template rendered. */
  createFromRequest(teamId: string, request: CreateDocumentRequest, author: VersionAuthor): DocumentDetail {
    const markdown = request.template === undefined ? (request.body ?? '') : renderTemplate(request.template, ['body', 'template']);
    const source = request.template === undefined ? 'api' : 'template';
    return this.create(teamId, { slug: request.slug, title: request.title, body: Buffer.from(markdown, 'utf8'), source }, author);
  }

  /** A new version rendered from a template (the same rules as append). */
  appendTemplate(teamId: string, slug: string, request: TemplateRequest, author: VersionAuthor): DocumentSaved {
    return this.append(teamId, slug, Buffer.from(renderTemplate(request, ['body']), 'utf8'), 'template', author);
  }

  append(teamId: string, slug: string, body: Buffer, source: VersionSource, author: VersionAuthor, baseVersion?: number): DocumentSaved {
    const { db, clock } = this.#ctx;
    const now = clock.now().toISOString();
    const saved = db.transaction(() => {
      const current = this.#document(teamId, slug);
      const head = this.#head(current);
      if (head.equals(body)) return { doc: current, unchanged: true };
      if (baseVersion !== undefined && baseVersion !== current.current_version) throw staleBase(slug, baseVersion, current.current_version, head);
      const over = checkAppend(this.#billing.caps(), current.current_version);
      if (over) throw paymentRequired('SVC_ERR_FREE_TIER_LIMIT', over);
      const next = current.current_version + 1;
      this.#insertVersion(current, next, head, body, source, author, now);
      setCurrentVersion(db, current.document_id, next, now);
      return { doc: { ...current, current_version: next, updated_at: now }, unchanged: false };
    })();
    if (saved.unchanged) return { ...this.#response(saved.doc), unchanged: true };
    // Only once the version has committed does it become the head.
    this.#heads.set(saved.doc.document_id, saved.doc.current_version, body);
    this.#announce(teamId, slug, saved.doc.current_version, source);
    return { ...this.#response(saved.doc), unchanged: false };
  }

  /**
   * What search needs of the version chains, which only this service decodes: each version's
   * time (the index backfill), and a version's body by the document's id (snippets, the backfill);
   * held when it is the current one, else rebuilt.
   */
  readonly history: DocumentHistory = {
    versions: (documentId) => listVersionMetadata(this.#ctx.db, documentId).map(({ version_number, created_at }) => ({ version_number, created_at })),
    body: (documentId, currentVersion, n) => (n === currentVersion ? this.#heads.get(documentId, n) : null) ?? this.#rebuild(documentId, n),
  };

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
    const rows = versionChain(this.#ctx.db, documentId, snapshotVersionFor(n), n);
    const target = rows[rows.length - 1]!;
    const body = reconstruct(rows.map(toStoredVersion));
    if (body.length !== target.body_bytes || sha256Hex(body) !== target.body_sha256) {
      throw new Error(`Stored history of document ${documentId} is corrupt at version ${n} (sha256 mismatch)`);
    }
    return body;
  }

  /** Version `n` of a document whose current version is at least `n`: its row must exist. */
  #metadata(documentId: string, n: number): VersionMetadataRow {
    const row = findVersionMetadata(this.#ctx.db, documentId, n);
    if (!row) throw new Error(`Stored history of document ${documentId} has no version ${n}`);
    return row;
  }

  /** Writes version `n` and indexes it for search, in the caller's transaction (search/documents-index.ts says why here). */
  #insertVersion(
    doc: Pick<DocumentRow, 'document_id' | 'team_id' | 'slug' | 'title'>,
    n: number,
    previous: Buffer | null,
    body: Buffer,
    source: VersionSource,
    author: VersionAuthor,
    now: string,
  ): void {
    const documentId = doc.document_id;
    indexDocument(this.#ctx.db, { documentId, teamId: doc.team_id, slug: doc.slug, title: doc.title, version: n, createdAt: now, body });
    insertVersion(this.#ctx.db, {
      document_id: documentId,
      version_number: n,
      version_id: randomUUID(),
      stored: encodeVersion(n, previous, body),
      body_bytes: body.length,
      body_sha256: bodySha256Hex(body),
      source,
      author,
      created_at: now,
    });
  }

  #announce(teamId: string, slug: string, version: number, source: VersionSource): void {
    this.#events.emit(teamId, { type: 'docs/doc.changed', resource_ref: slug, payload: { slug, version, source } });
    this.#ctx.bus.publish(docsTopic(teamId));
  }

  #document(teamId: string, slug: string): DocumentRow {
    const row = findDocument(this.#ctx.db, teamId, slug);
    // Another team's document is as absent as one that never existed.
    if (!row) throw notFound('SVC_ERR_DOCUMENT_NOT_FOUND', `No document ${slug}`);
    return row;
  }

  #response(doc: DocumentRow): DocumentDetail {
    const latest = this.#metadata(doc.document_id, doc.current_version);
    return { ...toDocumentSummary(doc), body: decoder.decode(this.#head(doc)), latest: toDocumentVersion(latest, null) };
  }
}

/** A save over `base`, which is no longer the latest: the latest's number and text go back, nothing is saved. */
export function staleBase(slug: string, base: number, latest: number, latestBody: Buffer): Error {
  return conflict('SVC_ERR_DOCUMENT_VERSION_STALE', {
    message: `Document ${slug} changed since version ${base}; the latest is version ${latest}. Nothing was saved: merge with it, then save over version ${latest}.`,
    version_number: latest,
    body: decoder.decode(latestBody),
  });
}

/** The UTF-8 text of raw bytes, or null when they are not valid UTF-8. */
export function decodeUtf8(bytes: Buffer): string | null {
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}
