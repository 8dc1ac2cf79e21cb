/**
 * Request shapes of the document surface (spec §4.7, research B2). Template slot rules live in
 * domain/templates.ts; the raw Markdown route takes bytes, not JSON.
 */
import { z } from 'zod';
import { TemplateRequest } from './domain/templates.ts';
import { CURSOR_PATTERN } from './documents.ts';

export const SLUG_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
export const SLUG_MAX = 160;
export const TITLE_MAX = 240;

const slug = z
  .string()
  .max(SLUG_MAX)
  .regex(SLUG_PATTERN, 'must start with a letter or digit and contain only letters, digits, ".", "-" or "_"');

export const CreateDocumentBody = z.strictObject({
  slug,
  title: z.string().min(1).max(TITLE_MAX),
  body: z.string().optional(),
  template: TemplateRequest.optional(),
});

export const SlugParams = z.strictObject({ slug });

/** Ours: `GET /v1/documents?limit&after&q` (documents.ts `page`); unknown parameters are ignored. */
export const DocumentListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  after: z.string().max(SLUG_MAX + 40).regex(CURSOR_PATTERN, 'must be a next_after from the previous page').optional(),
  q: z.string().max(200).optional(),
});

export const VersionParams = z.strictObject({
  slug,
  n: z.string().regex(/^[1-9][0-9]{0,9}$/, 'must be a version number (1, 2, 3, ...)').transform(Number),
});

export const TemplateParams = z.strictObject({ name: z.string().max(64) });

export { TemplateRequest };

const cap = z.number().int().min(0).max(1_000_000_000).nullable();

/** Up to 1 TiB; left out, the default quota (domain/caps.ts). */
const quota = z.number().int().min(0).max(2 ** 40).optional();

/** PUT /v1/node/docs/billing (owner API). */
export const CapsBody = z.strictObject({ caps: z.strictObject({ max_documents: cap, max_versions_per_doc: cap, max_asset_bytes: quota }) });
