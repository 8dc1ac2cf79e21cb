/**
 * A team member holding its own key, as a self-custodial client is: the owner API makes the team
 * and the certificate, the member signs each request itself. Signing is the client's cost, so the
 * workloads sign ahead of the timed part.
 */
import type { TeamHeaders } from '../../server/auth/team-envelope-client.ts';
import { testKey } from '../../test/support/keys.ts';
import { memberSigner } from '../team.ts';
import { bearer, call } from './http.ts';

export interface TeamMember {
  teamId: string;
  sign(method: string, path: string, body?: string): TeamHeaders;
}

/** The scopes the workloads use: documents written and read, the shelf written and read. */
const SCOPES = ['docs:read', 'docs:write', 'library:read', 'library:write'];

/** A new team `name` on the node at `url`, and its one member. */
export async function teamMember(url: string, ownerToken: string, name: string): Promise<TeamMember> {
  const { team_id } = await call<{ team_id: string }>(`${url}/v1/node/teams`, {
    method: 'POST',
    headers: bearer(ownerToken),
    body: JSON.stringify({ name, domain: 'bench.test' }),
  });
  const key = testKey();
  const { certificate_b64 } = await call<{ certificate_b64: string }>(`${url}/v1/node/teams/${encodeURIComponent(team_id)}/members`, {
    method: 'POST',
    headers: bearer(ownerToken),
    body: JSON.stringify({ did_key: key.didKey, alias: `${name}-member`, scopes: SCOPES }),
  });
  return { teamId: team_id, sign: memberSigner({ teamId: team_id, certificateB64: certificate_b64, key, aud: url }) };
}
