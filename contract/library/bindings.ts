/**
 * Profile bindings (docs/adr/0006-library-and-document-surfaces.md): which agent wears which exact
 * shelf profile version (digest included). One binding per agent; binding again replaces it.
 */
import { z } from 'zod';
import { AgentId, Digest, Ref, Version } from './common.ts';

export const AgentParams = z.object({ agent_id: AgentId });

/** The version defaults to the latest; a digest, when given, must be that version's. */
export const BindBody = z.strictObject({
  profile_ref: Ref,
  profile_version: Version.optional(),
  profile_digest: Digest.optional(),
  source_blueprint_ref: Ref.optional(),
});
export type BindInput = z.output<typeof BindBody>;

export const Binding = z.object({
  agent_id: z.string(),
  profile_ref: z.string(),
  profile_version: z.string(),
  profile_digest: z.string(),
  source_blueprint_ref: z.string().nullable(),
  bound_at: z.string(),
});
export type Binding = z.output<typeof Binding>;

/** Every binding of the team, by agent_id. */
export const BindingList = z.object({ bindings: z.array(Binding) });
export type BindingList = z.output<typeof BindingList>;
