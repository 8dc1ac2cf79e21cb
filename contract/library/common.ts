/**
 * What every part of the library surface (spec §4.6;
 * docs/adr/0006-library-and-document-surfaces.md) shares on the wire: refs, versions, digests and
 * tags as the node spells them, payload files, where a shelf profile was copied from, and
 * profile.yaml's free-form values. Content rules beyond shape (paths, sha256, profile.yaml,
 * changesets) are the node's (server/surfaces/library/domain/), checked after these.
 */
import { z } from 'zod';
import { MAX_TAGS, REF_PATTERN, REF_RULE, spellTagSet, VERSION_PATTERN } from '../library-rules.ts';

// ------------------------------------------------------------------ request fields

/** Blueprint and profile refs: `aweb.team`, `coordinator`, `reviewer-2`. */
export const Ref = z.string().regex(REF_PATTERN, `must be ${REF_RULE}`);
export const Version = z.string().regex(VERSION_PATTERN, 'must be a version string such as 1.2.0');
export const Digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" and 64 lower-case hex digits');
/**
 * A set of tags, read once here for every route that takes one: each spelled and checked by the
 * shared rule (contract/library-rules.ts, which the UI previews with), the set deduplicated and
 * sorted, and every refusal reported in one 422 at the tag it names. Unbounded as typed: a query's
 * filter, or a list of the node's own.
 */
export const TagSet = z.array(z.string()).transform((typed, ctx) => {
  const { tags, problems } = spellTagSet(typed);
  for (const { index, msg } of problems) ctx.addIssue({ code: 'custom', message: msg, path: index === null ? [] : [index], input: typed });
  return tags;
});
/** Tags as a request body sends them: at most MAX_TAGS entries as typed, then read as a TagSet. */
export const Tags = z.array(z.string()).max(MAX_TAGS).pipe(TagSet);
export const AgentId = z.string().min(1).max(128);

/** A payload file as a client sends it; the node computes (or checks) each sha256 itself. */
export const PayloadFileInput = z.strictObject({
  path: z.string().max(512),
  content_utf8: z.string(),
  sha256: z.string().optional(),
});
export const PayloadFiles = z.array(PayloadFileInput).min(1).max(1000);

export const TagsBody = z.strictObject({ tags: Tags });
export type TagsInput = z.output<typeof TagsBody>;

// ------------------------------------------------------------------ response fields

/** One file of a blueprint or profile payload, as stored: its sha256 is always there. */
export const LibraryFile = z.object({ path: z.string(), content_utf8: z.string(), sha256: z.string() });
export type LibraryFile = z.output<typeof LibraryFile>;

/** A free-form value of profile.yaml or blueprint.yaml (any JSON). */
export const JsonValue = z.unknown();
/** A profile.yaml list (`accepted_work`, `expected_apps`, …); absent reads as []. */
export const JsonList = z.array(JsonValue);
/** A profile.yaml mapping (`memory_policy`); absent reads as null. */
export const JsonMapping = z.record(z.string(), JsonValue).nullable();

/** Where a shelf profile was copied from; all null for a profile created on the shelf (or detached). */
export const SourcePins = z.object({
  source_blueprint_ref: z.string().nullable(),
  source_blueprint_version: z.string().nullable(),
  source_blueprint_digest: z.string().nullable(),
  source_profile_ref: z.string().nullable(),
  source_profile_version: z.string().nullable(),
  source_profile_digest: z.string().nullable(),
});
export type SourcePins = z.output<typeof SourcePins>;
