/** Bodies and path parameters of the owner API's team routes (team-routes.ts). */
import { z } from 'zod';
import { BODY_LIMIT_BYTES } from '../../http/limits.ts';
import { addressName } from '../core/namespaces/schemas.ts';
import { TEAM_SCOPES } from '../../teams/scopes.ts';

export const CreateTeamBody = z.strictObject({
  name: addressName,
  domain: z.string().min(1).max(253),
});

export const AddMemberBody = z.strictObject({
  did_key: z.string().min(1).max(256),
  alias: z.string().min(1).max(128),
  lifetime: z.enum(['persistent', 'ephemeral']).optional(),
  did_aw: z.string().min(1).max(256).optional(),
  address: z.string().min(3).max(320).optional(),
  scopes: z.array(z.enum(TEAM_SCOPES)).max(TEAM_SCOPES.length * 2).optional(),
});

export const SignBody = z.strictObject({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
  /** The exact request target to be sent, query included. */
  path: z.string().regex(/^\/\S*$/, 'must be a request target starting with "/"').max(4096),
  // A body the listener would refuse with a 413 is refused here, before it is signed.
  body: z.string().max(BODY_LIMIT_BYTES).optional(),
  surface: z.enum(['library', 'docs']).optional(),
  /** Ours (issue 14): the agent_id of the identity the app acts as; signed into the envelope. */
  acting_as: z.string().min(1).max(128).optional(),
});

export const TeamParams = z.object({ team_id: z.string().min(3).max(320) });
export const CertificateParams = z.object({ team_id: z.string().min(3).max(320), certificate_id: z.string().min(1).max(64) });
