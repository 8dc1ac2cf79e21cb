import { z } from 'zod';
import { addressName } from '../core/namespaces/schemas.ts';
import { reachability } from '../core/identities/schemas.ts';

export const SessionBody = z.strictObject({ code: z.string().min(1).max(128) });

export const CreateProjectBody = z.strictObject({
  slug: z.string().min(1).max(64),
  name: z.string().min(1).max(128).optional(),
  namespace: z.string().min(1).max(253).optional(),
});

export const CreateIdentityBody = z.strictObject({
  project_id: z.uuid(),
  name: addressName,
  address_reachability: reachability.optional(),
  human_name: z.string().max(64).optional(),
});

export const CreateNamespaceBody = z.strictObject({
  domain: z.string().min(1).max(253),
  /** An outside controller's did:key; absent: the node creates one in custody. */
  controller_did: z.string().min(1).max(128).optional(),
});

const passphrase = z.string().min(10, 'use a passphrase of at least 10 characters').max(1024);

export const ExportIdentityBody = z.strictObject({ passphrase });

export const ImportIdentityBody = z.strictObject({
  project_id: z.uuid(),
  passphrase,
  backup: z.unknown(),
});

export const AgentIdParams = z.object({ agent_id: z.uuid() });
