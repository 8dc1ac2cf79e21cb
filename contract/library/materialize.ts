/**
 * Materialize (upstream's, laid out as its CLI writes a home): the home files a runtime writes for
 * a bound or named shelf profile version. It computes and writes nothing on the node.
 */
import { z } from 'zod';
import { AgentId, JsonList, JsonMapping, Ref, Version } from './common.ts';

/** `local`: written into a home on a machine of the team's; `custodial-mcp`: kept by the node. */
export const MaterializeTarget = z.enum(['local', 'custodial-mcp']);
export type MaterializeTarget = z.output<typeof MaterializeTarget>;

/** Give `agent_id` (materialize its binding) or `profile_ref` (and optionally a version). */
export const MaterializeBody = z.strictObject({
  agent_id: AgentId.optional(),
  profile_ref: Ref.optional(),
  profile_version: Version.optional(),
  runtime_kind: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must name a runtime, e.g. claude-code, codex or pi'),
  target: MaterializeTarget,
});
export type MaterializeInput = z.output<typeof MaterializeBody>;

/** One entry of the home: a file with its text, or a symlink (claude-code's CLAUDE.md and skills). */
export const HomeFile = z.discriminatedUnion('kind', [
  z.object({ path: z.string(), kind: z.literal('file'), content_utf8: z.string() }),
  z.object({ path: z.string(), kind: z.literal('symlink'), target: z.string() }),
]);
export type HomeFile = z.output<typeof HomeFile>;

export const Materialized = z.object({
  profile_ref: z.string(),
  profile_version: z.string(),
  profile_digest: z.string(),
  source_blueprint_ref: z.string().nullable(),
  source_blueprint_version: z.string().nullable(),
  source_blueprint_digest: z.string().nullable(),
  runtime_kind: z.string(),
  target: MaterializeTarget,
  runtime_assumptions: JsonList,
  memory_policy: JsonMapping,
  /** Sorted by path; `.svc/profile/ref.json` pins the version and names the managed set. */
  home_files: z.array(HomeFile),
  /** Every path the home manages (what a refresh may replace or prune). */
  managed_set: z.array(z.string()),
});
export type Materialized = z.output<typeof Materialized>;
