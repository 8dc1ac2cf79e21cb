/**
 * Reviewable proposals (docs/adr/0006-library-and-document-surfaces.md): a changeset of profile
 * assets submitted for review, approved (which mints the next patch version) or rejected. The
 * reviewer's alias comes from the certificate. A changeset's content rules (paths, bases,
 * collisions) are the node's (server/surfaces/library/domain/changeset.ts), checked when submitted
 * and again when approved.
 */
import { z } from 'zod';
import { ActingAs } from '../acting-as.ts';
import { CHANGESET_SCHEMA } from '../library-rules.ts';
import { JsonValue, Ref } from './common.ts';

export const ProposalTarget = z.enum(['profile', 'memory', 'skill', 'workflow']);
export type ProposalTarget = z.output<typeof ProposalTarget>;

export const ProposalStatus = z.enum(['open', 'approved', 'rejected']);
export type ProposalStatus = z.output<typeof ProposalStatus>;

/** One change of a profile changeset: a file, or one profile.yaml field (`profile.yaml#mission`). */
export const ProposalAsset = z.object({
  path: z.string(),
  /** A file's new text. */
  content_utf8: z.string().optional(),
  /** A profile.yaml field's new value. */
  content: JsonValue.optional(),
  delete: z.boolean().optional(),
  /** The asset's digest the proposer saw (proposal_asset_digests); absent to create it. */
  base_asset_digest: z.string().optional(),
});
export type ProposalAsset = z.output<typeof ProposalAsset>;

/** The `content` of a proposal whose target is `profile`. */
export const Changeset = z.object({ schema: z.literal(CHANGESET_SCHEMA), assets: z.array(ProposalAsset) });
export type Changeset = z.output<typeof Changeset>;

// ------------------------------------------------------------------ requests

export const ProposalBody = z.strictObject({
  target: ProposalTarget,
  profile_ref: Ref,
  /** For target `profile`, a Changeset; for other targets whatever is proposed. */
  content: z.record(z.string(), z.unknown()),
  summary: z.string().max(500).optional(),
  rationale: z.string().max(4000).optional(),
});
export type ProposalInput = z.output<typeof ProposalBody>;

export const ProposalQuery = z.object({
  status: ProposalStatus.optional(),
  profile_ref: Ref.optional(),
});
export type ProposalFilter = z.output<typeof ProposalQuery>;

export const ProposalParams = z.object({ proposal_id: z.uuid() });

// ------------------------------------------------------------------ responses

/** The version an approval minted, and the one it superseded. */
export const MintedVersion = z.object({
  profile_ref: z.string(),
  version: z.string(),
  digest: z.string(),
  supersedes_profile_version: z.string(),
  supersedes_profile_digest: z.string(),
});
export type MintedVersion = z.output<typeof MintedVersion>;

export const Proposal = z.object({
  proposal_id: z.string(),
  target: ProposalTarget,
  profile_ref: z.string(),
  status: ProposalStatus,
  /** For target `profile`, a Changeset `{schema, assets}`; for other targets whatever was proposed. */
  content: JsonValue,
  summary: z.string().nullable(),
  rationale: z.string().nullable(),
  /** The shelf version the changeset was checked against when submitted. */
  base_profile_version: z.string().nullable(),
  created_by_alias: z.string(),
  /** Ours: the identity the app acted as when it submitted, when the team's owner member signed; else null (an agent, by its alias). */
  created_by_acting_as: ActingAs.nullable(),
  created_at: z.string(),
  decided_by_alias: z.string().nullable(),
  /** Ours: the identity the app acted as when it approved or rejected, when the team's owner member signed; else null. */
  decided_by_acting_as: ActingAs.nullable(),
  decided_at: z.string().nullable(),
  /** Set when the approval recheck rejected it (its bases went stale). */
  decision_reason: z.string().nullable(),
  /** Only on an approved profile proposal. */
  minted: MintedVersion.optional(),
});
export type Proposal = z.output<typeof Proposal>;

/** Newest first. */
export const ProposalList = z.array(Proposal);
