/**
 * Documents and their versions (spec §4.7; docs/adr/0006-library-and-document-surfaces.md): the
 * requests of `/v1/documents` and what the node answers. The node validates requests and describes
 * its API with these schemas; the UI takes the inferred types.
 */
import { z } from 'zod';
import { ActingAs } from '../acting-as.ts';
import { SLUG_MAX, SLUG_PATTERN, SLUG_RULE, TITLE_MAX } from './rules.ts';
import { TemplateRequest } from './templates.ts';

const slug = z.string().max(SLUG_MAX).regex(SLUG_PATTERN, SLUG_RULE);

/** Exactly one of `body` (raw Markdown) or `template` (checked by the route before this schema). */
/** Raw Markdown in `body`, or a template to render in `template`: exactly one (`body: ""` counts). */
export const CreateDocumentBody = z
  .strictObject({
    slug,
    title: z.string().min(1).max(TITLE_MAX),
    body: z.string().optional(),
    template: TemplateRequest.optional(),
  })
  .refine((value) => (value.body === undefined) !== (value.template === undefined), 'Provide exactly one of body or template');
export type CreateDocumentRequest = z.output<typeof CreateDocumentBody>;
export type CreateDocumentInput = z.input<typeof CreateDocumentBody>;

export const SlugParams = z.strictObject({ slug });

/** `<updated_at>/<slug>`: slugs never hold "/", so the last one splits it. */
export const CURSOR_PATTERN = /^\d{4}-\d{2}-\d{2}T[0-9:.]+Z\/[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** Ours: `GET /v1/documents?limit&after&q`; without `limit` every document; unknown parameters are ignored. */
export const DocumentListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).optional(),
    after: z
      .string()
      .max(SLUG_MAX + 40)
      .regex(CURSOR_PATTERN, 'must be a next_after from the previous page')
      .optional(),
    q: z.string().max(200).optional(),
  })
  .refine((value) => value.after === undefined || value.limit !== undefined, { message: 'after pages a listing: give limit too', path: ['after'] });
export type DocumentListInput = z.output<typeof DocumentListQuery>;

/**
 * Ours: `POST /v1/documents/{slug}/versions?base_version=<n>`: the version the new text was
 * written over. Given, a save over any other version is refused (409 SVC_ERR_DOCUMENT_VERSION_STALE,
 * the latest in its detail) rather than replacing a change made meanwhile; left out, the save
 * appends as upstream's does (agents that read, then write at once).
 */
export const AppendQuery = z.object({
  base_version: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, 'must be a version number (1, 2, 3, ...)')
    .transform(Number)
    .optional(),
});
export type AppendQueryInput = z.input<typeof AppendQuery>;

export const VersionParams = z.strictObject({
  slug,
  n: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, 'must be a version number (1, 2, 3, ...)')
    .transform(Number),
});

// ---------------------------------------------------------------------------------- responses

/** How a version was made: raw Markdown, a template, or a save through an editable present link. */
export const VersionSource = z.enum(['api', 'template', 'present-link']);
export type VersionSource = z.output<typeof VersionSource>;

/** The identity of this node the app acted as when the team's owner member signed (recorded by the node). */
export { ActingAs };

/**
 * Who made a version, as history names it (a person reads a name, not a key): an identity the app
 * acted as, a team member (an agent, by its certificate's alias and address), or a visitor through
 * an editable link (by the name they typed; null when they typed none).
 */
export const VersionAuthorView = z.object({
  kind: z.enum(['identity', 'member', 'link-editor']),
  name: z.string().nullable(),
  address: z.string().nullable(),
});
export type VersionAuthorView = z.output<typeof VersionAuthorView>;

/** One version's metadata; `body` only when a single version is read (null in a history). */
export const DocumentVersion = z.object({
  version_id: z.string(),
  version_number: z.number().int(),
  body: z.string().nullable(),
  /** Ours: how the version was made, and the sha256 (hex) of its UTF-8 body. */
  source: VersionSource,
  body_sha256: z.string(),
  created_by_did_key: z.string().nullable(),
  created_by_did_aw: z.string().nullable(),
  created_by_address: z.string().nullable(),
  created_by_alias: z.string().nullable(),
  certificate_id: z.string().nullable(),
  created_by_editor_name: z.string().nullable(),
  created_at: z.string(),
  /** Ours: the identity the app acted as, when the team's owner member signed for it. */
  acting_as: ActingAs.nullable(),
  /** Ours: who made it, in one shape (derived from the fields above). */
  author: VersionAuthorView,
});
export type DocumentVersion = z.output<typeof DocumentVersion>;

/** The history, newest first, metadata only. */
export const VersionList = z.array(DocumentVersion);

export const DocumentSummary = z.object({
  document_id: z.string(),
  slug: z.string(),
  title: z.string(),
  current_version: z.number().int(),
  updated_at: z.string(),
  created_at: z.string(),
});
export type DocumentSummary = z.output<typeof DocumentSummary>;

/** A document with its current body; `latest` is the current version's metadata (its body is `body`). */
export const DocumentDetail = DocumentSummary.extend({
  body: z.string(),
  latest: DocumentVersion,
});
export type DocumentDetail = z.output<typeof DocumentDetail>;

/**
 * A save's answer (appending raw Markdown or a template): the document after it, and `unchanged`
 * (ours): true when the text is byte for byte the latest version's, so no version was made and the
 * answer is 200 with that version; false for a new version (201).
 */
export const DocumentSaved = DocumentDetail.extend({ unchanged: z.boolean() });
export type DocumentSaved = z.output<typeof DocumentSaved>;

/** Ours: one page, most recently changed first, and how many match in all. */
export const DocumentPage = z.object({
  documents: z.array(DocumentSummary),
  has_more: z.boolean(),
  next_after: z.string().nullable(),
  total: z.number().int(),
});
export type DocumentPage = z.output<typeof DocumentPage>;

/** `GET /v1/documents`: every document (the spec's array) without `limit`, a page with it. */
export const DocumentListing = z.union([z.array(DocumentSummary), DocumentPage]);
