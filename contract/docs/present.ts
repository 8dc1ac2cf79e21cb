/**
 * Present links (spec §3, §4.7; docs/adr/0006-library-and-document-surfaces.md): minting, listing
 * and revoking them (team routes), the editor's live preview, and the JSON an editable link's page
 * exchanges with the node (`/present/{token}/…`; the pages themselves are HTML).
 */
import { z } from 'zod';
import { ActingAs } from '../acting-as.ts';
import { EDITOR_NAME_MAX, PREVIEW_MAX_CHARS, SLUG_MAX, SLUG_PATTERN } from './rules.ts';
import { BasePalettes, PaletteContrast, ThemeDraft } from './theme.ts';

const count = z.number().int().min(1).max(1_000_000_000);

/** `POST /v1/present`: pinned to `version` (the latest when absent), for `ttl_seconds` (clamped to 7 days). */
export const MintBody = z.strictObject({
  slug: z.string().max(SLUG_MAX).regex(SLUG_PATTERN, 'must be a document slug'),
  version: count.optional(),
  ttl_seconds: count.optional(),
  editable: z.boolean().optional(),
});
export type MintInput = z.output<typeof MintBody>;

/** A link's token (or, to revoke, its link_id) in the path; anything else is simply not found. */
export const TokenParams = z.object({ token: z.string() });

/** Ours: a document (saved or not) as its present page would show it, optionally with a theme being edited. */
export const DraftPreviewBody = z.strictObject({ body: z.string(), theme: ThemeDraft.optional() });

/** `POST /present/{token}/preview`: an editable link's page previewing what its visitor types. */
export const LinkPreviewBody = z.strictObject({ body: z.string().max(PREVIEW_MAX_CHARS) });

/** `POST /present/{token}/edit`: a save through an editable link, over `base_version`. */
export const LinkEditBody = z.strictObject({
  body: z.string(),
  base_version: count,
  editor_name: z.string().max(EDITOR_NAME_MAX).optional(),
});

// ---------------------------------------------------------------------------------- responses

/** The new link: its token and address are shown this once (the node keeps only a hash). */
export const MintedLink = z.object({
  token: z.string(),
  url: z.string(),
  link_id: z.string(),
  slug: z.string(),
  version: z.number().int(),
  editable: z.boolean(),
  /** The lifetime actually granted: the requested one clamped to the maximum. */
  ttl_seconds: z.number().int(),
  expires_at: z.string(),
});
export type MintedLink = z.output<typeof MintedLink>;

/** A link as listed: never its token. */
export const PresentLinkSummary = z.object({
  link_id: z.string(),
  slug: z.string(),
  version: z.number().int(),
  editable: z.boolean(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
  created_by_alias: z.string(),
  /** Ours: the identity the app acted as when it made the link, when the team's owner member signed; else null (an agent, by its alias). */
  created_by_acting_as: ActingAs.nullable(),
  created_at: z.string(),
});
export type PresentLinkSummary = z.output<typeof PresentLinkSummary>;

/** Ours: the team's links, newest first. */
export const PresentLinkList = z.array(PresentLinkSummary);

/** Revoking is idempotent. */
export const LinkRevoked = z.object({ revoked: z.literal(true) });

/** `POST /v1/present/preview`: the whole present page, its contrast against WCAG AA, and the palettes unset colours fall back to. */
export const Preview = z.object({
  html: z.string(),
  contrast: z.array(PaletteContrast),
  base_palettes: BasePalettes,
});
export type Preview = z.output<typeof Preview>;

/** `GET /present/{token}/state` and a save's answer: the document's latest version. */
export const LinkVersion = z.object({ version_number: z.number().int() });

/** `POST /present/{token}/preview`: the rendered, sanitised body. */
export const LinkPreview = z.object({ html: z.string() });
