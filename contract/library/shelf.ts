/**
 * A team's private shelf as a whole (docs/adr/0006-library-and-document-surfaces.md): the working
 * set read in pages, importing a catalog profile onto it, and the team's public registration in the
 * catalog.
 */
import { z } from 'zod';
import { Ref, SourcePins, Tags, Version } from './common.ts';

// ------------------------------------------------------------------ registration

/** `POST /v1/team/register`: idempotent and first-write-wins per field. */
export const RegisterBody = z.strictObject({
  owner: z.string().min(1).max(128).optional(),
  display_name: z.string().min(1).max(128).optional(),
});
export type RegisterInput = z.output<typeof RegisterBody>;

export const Registration = z.object({
  team_id: z.string(),
  owner: z.string().nullable(),
  display_name: z.string().nullable(),
  registered_at: z.string(),
});
export type Registration = z.output<typeof Registration>;

// ------------------------------------------------------------------ the working set

/**
 * Ours: keyset paging of GET /v1/shelf in profile_ref order. Without `limit` the whole working set,
 * as the spec has it; `after` is a bound, not a lookup, so a cursor outlives its profile's deletion.
 */
export const ShelfQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  after: Ref.optional(),
});
export type ShelfQuery = z.output<typeof ShelfQuery>;

/** One profile of the team's shelf, at its latest version. */
export const ShelfProfile = SourcePins.omit({ source_profile_digest: true }).extend({
  profile_ref: z.string(),
  version: z.string(),
  digest: z.string(),
  name: z.string().nullable(),
  /** The profile's mission. */
  summary: z.string().nullable(),
  tags: z.array(z.string()),
  /** The source blueprint's newest published version; null when it has no source. */
  source_blueprint_latest_version: z.string().nullable(),
  update_available: z.boolean(),
  /** The source's latest version changed this profile (so an update would pull something). */
  source_profile_changed: z.boolean(),
  updated_at: z.string(),
});
export type ShelfProfile = z.output<typeof ShelfProfile>;

/** One page of `GET /v1/shelf?limit&after`, in profile_ref order. */
export const ShelfPage = z.object({
  profiles: z.array(ShelfProfile),
  has_more: z.boolean(),
  /** The `after` of the next page; null on the last one. */
  next_after: z.string().nullable(),
});
export type ShelfPage = z.output<typeof ShelfPage>;

// ------------------------------------------------------------------ import from the catalog

/** `POST /v1/shelf/import`: a catalog profile copied byte for byte (so the digests agree). */
export const ShelfImportBody = z.strictObject({
  source_blueprint_ref: Ref,
  source_blueprint_version: Version.optional(),
  profile_ref: Ref,
  tags: Tags.optional(),
});
export type ShelfImportInput = z.output<typeof ShelfImportBody>;

export const ShelfImportResult = SourcePins.extend({
  profile_ref: z.string(),
  version: z.string(),
  digest: z.string(),
  tags: z.array(z.string()),
  /** False when the profile was already on the shelf from that source. */
  created: z.boolean(),
});
export type ShelfImportResult = z.output<typeof ShelfImportResult>;
