/**
 * One shelf profile (docs/adr/0006-library-and-document-surfaces.md): an immutable series of
 * versions made on the shelf, by update from source or by an approved proposal; its tags; and
 * publishing a version into the catalog (upstream's publish-profile).
 */
import { z } from 'zod';
import { PROFILE_PAYLOAD_SCHEMA } from '../library-rules.ts';
import { JsonList, JsonMapping, LibraryFile, PayloadFiles, Ref, SourcePins, Tags, Version } from './common.ts';

// ------------------------------------------------------------------ requests

export const ProfileParams = z.object({ profile_ref: Ref });
export const ProfileQuery = z.object({ include: z.enum(['files']).optional(), version: Version.optional() });

/** `POST /v1/profiles`: a profile made on the shelf; profile.yaml's `id` becomes its ref. */
export const CreateProfileBody = z.strictObject({ schema: z.literal(PROFILE_PAYLOAD_SCHEMA).optional(), files: PayloadFiles, tags: Tags.optional() });
export type CreateProfileInput = z.output<typeof CreateProfileBody>;

/** `POST /v1/profiles/{ref}/versions`: whole files; profile.yaml's `version` must be new and higher. */
export const AddVersionBody = z.strictObject({ schema: z.literal(PROFILE_PAYLOAD_SCHEMA).optional(), files: PayloadFiles });
export type AddVersionInput = z.output<typeof AddVersionBody>;

export const UpdateFromSourceBody = z.strictObject({
  target_version: Version,
  source_blueprint_version: Version.optional(),
  /** Ours: report what would be taken and kept without minting anything. */
  dry_run: z.boolean().optional(),
});
export type UpdateFromSourceInput = z.output<typeof UpdateFromSourceBody>;

/**
 * `POST /v1/profiles/{ref}/publish`: a profile version (default latest) as a new blueprint, or as a
 * new version of a blueprint the team owns (its other profiles and README carry over). Exactly one
 * of `target_blueprint_ref` and `new_blueprint` (the node says so with a 422).
 */
export const PublishBody = z.strictObject({
  profile_version: Version.optional(),
  blueprint_version: Version,
  target_blueprint_ref: Ref.optional(),
  new_blueprint: z
    .strictObject({
      blueprint_ref: Ref,
      name: z.string().min(1).max(200),
      summary: z.string().max(500).optional(),
      description: z.string().max(4000).optional(),
      tags: Tags.optional(),
      readme: z.string().max(200_000).optional(),
      missions: z.array(z.string().max(500)).max(20).optional(),
    })
    .optional(),
});
export type PublishInput = z.output<typeof PublishBody>;
export type NewBlueprintInput = NonNullable<PublishInput['new_blueprint']>;

// ------------------------------------------------------------------ responses

/** How a version came to be. */
export const VersionOrigin = z.enum(['created', 'version', 'import', 'update-from-source', 'proposal']);
export type VersionOrigin = z.output<typeof VersionOrigin>;

/** A profile at one version: its record metadata and profile.yaml's fields. */
export const ProfileSummary = SourcePins.extend({
  profile_ref: z.string(),
  version: z.string(),
  digest: z.string(),
  tags: z.array(z.string()),
  name: z.string().nullable(),
  mission: z.string().nullable(),
  accepted_work: JsonList,
  runtime_assumptions: JsonList,
  memory_policy: JsonMapping,
  expected_apps: JsonList,
  origin: VersionOrigin,
  created_at: z.string(),
});
export type ProfileSummary = z.output<typeof ProfileSummary>;

/** A profile created or saved as a new version: the node also says which skills it declared in profile.yaml. */
export const AuthoredProfile = ProfileSummary.extend({
  /** The `skills/<n>/SKILL.md` files that had no `skills:` entry; the node added one for each. */
  registered_skills: z.array(z.string()),
});
export type AuthoredProfile = z.output<typeof AuthoredProfile>;

/** `GET /v1/profiles/{ref}?include=files`: the files, and the digest a proposal quotes per asset. */
export const ProfileWithFiles = ProfileSummary.extend({
  files: z.array(LibraryFile),
  /** Every file path, and `profile.yaml#<field>` for each field asset present. */
  proposal_asset_digests: z.record(z.string(), z.string()),
});
export type ProfileWithFiles = z.output<typeof ProfileWithFiles>;

/** `GET /v1/profiles/{ref}`: with `include=files` the files too. */
export const ProfileRead = z.union([ProfileWithFiles, ProfileSummary]);

export const ProfileVersion = z.object({ version: z.string(), digest: z.string(), origin: VersionOrigin, created_at: z.string() });
export type ProfileVersion = z.output<typeof ProfileVersion>;

/** Newest first. */
export const ProfileVersions = z.object({ profile_ref: z.string(), versions: z.array(ProfileVersion) });
export type ProfileVersions = z.output<typeof ProfileVersions>;

export const UpdateFromSourceResult = z.object({
  profile_ref: z.string(),
  version: z.string(),
  digest: z.string(),
  /** False when nothing was minted (nothing to take, or a dry run). */
  updated: z.boolean(),
  /** Present on a dry run: what would be taken and kept, nothing minted or re-pinned. */
  dry_run: z.literal(true).optional(),
  /** `field:<name>` and `file:<path>` parts taken from the source. */
  updated_parts: z.array(z.string()),
  /** Parts the source changed too, kept as the team edited them. */
  preserved_parts: z.array(z.string()),
  source_blueprint_version: z.string().nullable(),
  source_blueprint_digest: z.string().nullable(),
});
export type UpdateFromSourceResult = z.output<typeof UpdateFromSourceResult>;

export const PublishResult = z.object({
  blueprint_ref: z.string(),
  blueprint_version: z.string(),
  blueprint_digest: z.string(),
  profile_ref: z.string(),
  profile_version: z.string(),
  profile_digest: z.string(),
});
export type PublishResult = z.output<typeof PublishResult>;

export const ProfileTags = z.object({ profile_ref: z.string(), tags: z.array(z.string()) });
export type ProfileTags = z.output<typeof ProfileTags>;

/** Every version goes; bindings and proposals of the profile go with it. */
export const ProfileDeleted = z.object({ profile_ref: z.string(), deleted_versions: z.array(z.string()) });
export type ProfileDeleted = z.output<typeof ProfileDeleted>;
