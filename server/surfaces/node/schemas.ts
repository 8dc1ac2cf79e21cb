import { z } from 'zod';
import { addressNameProblem, domainProblem, slugProblem } from '../../../contract/core-rules.ts';
import { reachability } from '../core/identities/schemas.ts';

/**
 * A string field checked by a contract rule (contract/core-rules.ts), trimmed as the UI trims it:
 * the UI checks its forms with the same function, and the node's 422 carries the same words.
 * The rule checks lengths itself, so one bad value is one issue.
 */
export function ruled(problem: (value: string) => string | null) {
  return z
    .string()
    .trim()
    .superRefine((value, context) => {
      const text = problem(value);
      if (text !== null) context.addIssue({ code: 'custom', message: text });
    });
}

/** A project slug, an address name and a namespace domain, by the contract's rules. */
export const projectSlug = ruled(slugProblem);
export const addressName = ruled(addressNameProblem);
export const domainName = ruled(domainProblem);

export const SessionBody = z.strictObject({ code: z.string().min(1).max(128) });

export const CreateProjectBody = z.strictObject({
  slug: projectSlug,
  name: z.string().min(1).max(128).optional(),
  namespace: domainName.optional(),
});

export const CreateIdentityBody = z.strictObject({
  project_id: z.uuid(),
  name: addressName,
  address_reachability: reachability.optional(),
  human_name: z.string().max(64).optional(),
});

export const CreateNamespaceBody = z.strictObject({
  domain: domainName,
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

/**
 * `POST /v1/node/setup`: a person's first identity in one step. `domain` is optional: without
 * one the identity gets an address under this node's own `.local` namespace (setup.ts).
 */
export const SetupBody = z.strictObject({
  name: addressName,
  domain: domainName.optional(),
});
