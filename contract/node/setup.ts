/**
 * "Set up your node" (`POST /v1/node/setup`): a person's first identity in one step: a namespace
 * whose key the node holds, a project bound to it, and a persistent identity named `name`.
 */
import { z } from 'zod';
import { Identity } from '../core/identities.ts';
import { domainName, identityName } from './fields.ts';

/** Without a domain the identity gets an address under this node's own `.local` namespace. */
export const SetupBody = z.strictObject({
  name: identityName,
  domain: domainName.optional(),
});
export type SetupInput = z.input<typeof SetupBody>;

/** 201 with what the UI shows next; 200 (`created: false`) when the node was already set up with this very name and domain. */
export const SetupResult = z.object({
  created: z.boolean(),
  identity: Identity,
  /** `<domain>/<name>`: the address to share. */
  address: z.string(),
  project: z.object({ project_id: z.string(), slug: z.string() }),
  /** `local`: the node's own `.local` namespace (no domain was given). */
  namespace: z.object({ domain: z.string(), local: z.boolean() }),
});
export type SetupResult = z.output<typeof SetupResult>;
