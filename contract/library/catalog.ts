/**
 * The public blueprint catalog (docs/adr/0006-library-and-document-surfaces.md): three reads anyone
 * may make, and the owner team's writes (import a blueprint payload, retag, delete).
 */
import { z } from 'zod';
import { IMPORT_PAYLOAD_SCHEMA } from '../library-rules.ts';
import { JsonList, JsonMapping, JsonValue, LibraryFile, PayloadFiles, Ref, TagSet, Version } from './common.ts';

// ------------------------------------------------------------------ requests

export const BlueprintParams = z.object({ blueprint_ref: Ref });
export const BlueprintProfileParams = z.object({ blueprint_ref: Ref, profile_ref: Ref });
export const VersionQuery = z.object({ version: Version.optional() });

/** `?tags=a&tags=b` or `?tags=a,b`: the blueprints carrying any of them, each tag spelled as the node keeps it. */
export const CatalogQuery = z.object({
  tags: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) => (value === undefined ? [] : [value].flat().flatMap((t) => t.split(','))))
    .pipe(TagSet),
});

/** `POST /v1/blueprints/import`: the canonical payload, blueprint.yaml at its root. */
export const ImportBody = z.strictObject({ schema: z.literal(IMPORT_PAYLOAD_SCHEMA), files: PayloadFiles });
export type BlueprintImportPayload = z.output<typeof ImportBody>;

// ------------------------------------------------------------------ responses

/** A blueprint in the public catalog at one version (the list shows each one's latest). */
export const BlueprintSummary = z.object({
  blueprint_ref: z.string(),
  version: z.string(),
  digest: z.string(),
  tags: z.array(z.string()),
  name: z.string(),
  summary: z.string().nullable(),
  description: z.string().nullable(),
  /** blueprint.yaml's `profiles[]` entries verbatim (id, default_count, runtime_hints…). */
  recommendations: JsonList,
  runtime_hints: JsonList,
  expected_apps: JsonList,
  first_mission_examples: JsonList,
  /** The owning team's id. */
  owner: z.string(),
  /** The owning team's registered display name (POST /v1/team/register). */
  display_name: z.string().nullable(),
  published_at: z.string(),
});
export type BlueprintSummary = z.output<typeof BlueprintSummary>;

/** Newest first. */
export const BlueprintList = z.array(BlueprintSummary);

export const BlueprintProfileSummary = z.object({
  profile_ref: z.string(),
  version: z.string(),
  digest: z.string(),
  name: z.string().nullable(),
  mission: z.string().nullable(),
});
export type BlueprintProfileSummary = z.output<typeof BlueprintProfileSummary>;

export const BlueprintVersion = z.object({ version: z.string(), digest: z.string(), published_at: z.string() });
export type BlueprintVersion = z.output<typeof BlueprintVersion>;

/** One blueprint version with its profiles and files, and every version (newest first). */
export const BlueprintDetail = BlueprintSummary.extend({
  profiles: z.array(BlueprintProfileSummary),
  versions: z.array(BlueprintVersion),
  files: z.array(LibraryFile),
});
export type BlueprintDetail = z.output<typeof BlueprintDetail>;

/** The public profile read (upstream's get-profile): its manifest fields and profile-relative files. */
export const PublicProfile = z.object({
  blueprint_ref: z.string(),
  blueprint_version: z.string(),
  profile_ref: z.string(),
  version: z.string(),
  digest: z.string(),
  name: z.string().nullable(),
  mission: z.string().nullable(),
  accepted_work: JsonList,
  runtime_assumptions: JsonList,
  /** blueprint.yaml's recommendation for the profile, else profile.yaml's, else []. */
  runtime_hints: JsonValue,
  memory_policy: JsonMapping,
  expected_apps: JsonList,
  event_subscriptions: JsonList,
  approval_required: JsonList,
  files: z.array(LibraryFile),
});
export type PublicProfile = z.output<typeof PublicProfile>;

export const BlueprintImportResult = z.object({
  digest: z.string(),
  blueprint_ref: z.string(),
  version: z.string(),
  profiles: z.array(z.object({ profile_ref: z.string(), version: z.string(), digest: z.string() })),
  /** False when this version was already published with identical content (nothing changed). */
  created: z.boolean(),
});
export type BlueprintImportResult = z.output<typeof BlueprintImportResult>;

export const BlueprintTags = z.object({ blueprint_ref: z.string(), tags: z.array(z.string()) });
export type BlueprintTags = z.output<typeof BlueprintTags>;

export const BlueprintDeleted = z.object({
  blueprint_ref: z.string(),
  deleted_versions: z.array(z.string()),
  /** Shelf profiles (of every team) that tracked it and now stand on their own. */
  detached_profiles: z.number().int(),
});
export type BlueprintDeleted = z.output<typeof BlueprintDeleted>;
