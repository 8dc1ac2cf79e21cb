import { z } from 'zod';
import { addressName } from '../namespaces/schemas.ts';

export const ALIAS = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;
export const alias = z.string().regex(ALIAS, 'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit');

/** `contacts_only` is accepted as a spelling of the spec's `contacts-only`. */
export const reachability = z
  .enum(['public', 'contacts-only', 'contacts_only'])
  .transform((value) => (value === 'contacts_only' ? 'contacts-only' : value));

const context = z
  .record(z.string(), z.unknown())
  .refine((value) => JSON.stringify(value).length <= 16_384, 'context must serialise to at most 16 KiB');

const settings = {
  human_name: z.string().max(64).optional(),
  role: z.string().max(50).optional(),
  program: z.string().max(256).optional(),
  context: context.optional(),
};

export const InitBody = z
  .strictObject({
    alias: alias.optional(),
    name: addressName.optional(),
    lifetime: z.enum(['ephemeral', 'persistent']).optional(),
    address_reachability: reachability.optional(),
    ...settings,
  })
  .superRefine((body, issue) => {
    const persistent = body.lifetime === 'persistent';
    if (persistent && body.name === undefined) issue.addIssue({ code: 'custom', path: ['name'], message: 'a persistent identity needs a name' });
    if (persistent && body.alias !== undefined) issue.addIssue({ code: 'custom', path: ['alias'], message: 'a persistent identity takes a name, not an alias' });
    if (!persistent && body.name !== undefined) issue.addIssue({ code: 'custom', path: ['name'], message: 'name is only for persistent identities; use alias' });
  });

export type InitInput = z.output<typeof InitBody>;

export const SettingsBody = z.strictObject({ ...settings, address_reachability: reachability.optional() });
export type SettingsInput = z.output<typeof SettingsBody>;

export const ResolveParams = z.object({ namespace: z.string().min(1).max(253), name: z.string().min(1).max(64) });
export const AgentIdParams = z.object({ agent_id: z.uuid() });
