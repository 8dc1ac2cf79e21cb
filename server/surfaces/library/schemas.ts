/**
 * Request shapes of the library surface (spec §4.6, research A4). Content rules beyond shape
 * (paths, sha256, profile.yaml, changesets) live in domain/, shared by every route that needs them.
 */
import { z } from 'zod';
import { REF_PATTERN, REF_RULE, VERSION_PATTERN } from '../../../contract/library-rules.ts';
import { IMPORT_PAYLOAD_SCHEMA, PROFILE_PAYLOAD_SCHEMA } from './domain/digest.ts';

/** Blueprint and profile refs: `aweb.team`, `coordinator`, `reviewer-2`. */
const ref = z.string().regex(REF_PATTERN, `must be ${REF_RULE}`);
const version = z.string().regex(VERSION_PATTERN, 'must be a version string such as 1.2.0');
const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" and 64 lower-case hex digits');
const tags = z.array(z.string()).max(32);
const agentId = z.string().min(1).max(128);

const fileEntry = z.strictObject({
  path: z.string().max(512),
  content_utf8: z.string(),
  sha256: z.string().optional(),
});
const files = z.array(fileEntry).min(1).max(1000);

export const ImportBody = z.strictObject({ schema: z.literal(IMPORT_PAYLOAD_SCHEMA), files });

export const RegisterBody = z.strictObject({
  owner: z.string().min(1).max(128).optional(),
  display_name: z.string().min(1).max(128).optional(),
});

export const CreateProfileBody = z.strictObject({ schema: z.literal(PROFILE_PAYLOAD_SCHEMA).optional(), files, tags: tags.optional() });

export const AddVersionBody = z.strictObject({ schema: z.literal(PROFILE_PAYLOAD_SCHEMA).optional(), files });

export const UpdateFromSourceBody = z.strictObject({
  target_version: version,
  source_blueprint_version: version.optional(),
  /** Ours: report what would be taken and kept without minting anything. */
  dry_run: z.boolean().optional(),
});

export const ShelfImportBody = z.strictObject({
  source_blueprint_ref: ref,
  source_blueprint_version: version.optional(),
  profile_ref: ref,
  tags: tags.optional(),
});

export const PublishBody = z.strictObject({
  profile_version: version.optional(),
  blueprint_version: version,
  target_blueprint_ref: ref.optional(),
  new_blueprint: z
    .strictObject({
      blueprint_ref: ref,
      name: z.string().min(1).max(200),
      summary: z.string().max(500).optional(),
      description: z.string().max(4000).optional(),
      tags: tags.optional(),
      readme: z.string().max(200_000).optional(),
      missions: z.array(z.string().max(500)).max(20).optional(),
    })
    .optional(),
});
export type PublishBody = z.output<typeof PublishBody>;

export const TagsBody = z.strictObject({ tags });

export const BindBody = z.strictObject({
  profile_ref: ref,
  profile_version: version.optional(),
  profile_digest: digest.optional(),
  source_blueprint_ref: ref.optional(),
});
export type BindBody = z.output<typeof BindBody>;

export const MaterializeBody = z.strictObject({
  agent_id: agentId.optional(),
  profile_ref: ref.optional(),
  profile_version: version.optional(),
  runtime_kind: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must name a runtime, e.g. claude-code, codex or pi'),
  target: z.enum(['local', 'custodial-mcp']),
});
export type MaterializeBody = z.output<typeof MaterializeBody>;

export const ProposalBody = z.strictObject({
  target: z.enum(['profile', 'memory', 'skill', 'workflow']),
  profile_ref: ref,
  content: z.record(z.string(), z.unknown()),
  summary: z.string().max(500).optional(),
  rationale: z.string().max(4000).optional(),
});
export type ProposalBody = z.output<typeof ProposalBody>;

export const ProposalQuery = z.object({
  status: z.enum(['open', 'approved', 'rejected']).optional(),
  profile_ref: ref.optional(),
});

export const BlueprintParams = z.object({ blueprint_ref: ref });
export const BlueprintProfileParams = z.object({ blueprint_ref: ref, profile_ref: ref });
export const ProfileParams = z.object({ profile_ref: ref });
export const ProposalParams = z.object({ proposal_id: z.uuid() });
export const AgentParams = z.object({ agent_id: agentId });
export const VersionQuery = z.object({ version: version.optional() });
export const ProfileQuery = z.object({ include: z.enum(['files']).optional(), version: version.optional() });

/**
 * Ours: keyset paging of GET /v1/shelf in profile_ref order. Without `limit` the whole working set,
 * as the spec has it; `after` is a bound, not a lookup, so a cursor outlives its profile's deletion.
 */
export const ShelfQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  after: ref.optional(),
});
export type ShelfQuery = z.output<typeof ShelfQuery>;

/** `?tags=a&tags=b` or `?tags=a,b`. */
export const CatalogQuery = z.object({
  tags: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) => (value === undefined ? [] : [value].flat().flatMap((t) => t.split(',')))),
});
