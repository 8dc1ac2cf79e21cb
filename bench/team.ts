/**
 * A team member as a self-custodial client is one, for benchmarks against a worker-thread node:
 * the owner API makes the team and the certificate, the member signs its own requests.
 */
import { buildTeamHeaders, type TeamHeaders } from '../server/auth/team-envelope-client.ts';
import { privateKeyFromSeed, signBytes } from '../server/crypto/ed25519.ts';
import { testKey, type TestKey } from '../test/support/keys.ts';
import type { WorkerServer } from './server-worker.ts';

export interface Member {
  teamId: string;
  /** Signs one request; sign before timing starts: signing is the client's cost, not the server's. */
  sign(method: string, path: string, body?: string): TeamHeaders;
  /** Sends a signed request; anything but a 2xx throws. */
  send(method: string, path: string, headers: TeamHeaders, body?: string): Promise<Response>;
}

/**
 * How a member holding `key` signs each of its requests to the node at `aud`, with the certificate
 * the team's owner gave it.
 */
export function memberSigner(member: { teamId: string; certificateB64: string; key: TestKey; aud: string }): Member['sign'] {
  const privateKey = privateKeyFromSeed(member.key.seed);
  return (method, path, body) =>
    buildTeamHeaders({
      method,
      path,
      body,
      aud: member.aud,
      teamId: member.teamId,
      certificateB64: member.certificateB64,
      didKey: member.key.didKey,
      sign: (bytes) => signBytes(privateKey, bytes),
    });
}

export async function ownerPost<T>(node: WorkerServer, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${node.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${node.ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The one member of a new team `name`. */
export async function member(node: WorkerServer, name: string): Promise<Member> {
  const { team_id } = await ownerPost<{ team_id: string }>(node, '/v1/node/teams', { name, domain: 'bench.test' });
  const key = testKey();
  const { certificate_b64 } = await ownerPost<{ certificate_b64: string }>(node, `/v1/node/teams/${encodeURIComponent(team_id)}/members`, {
    did_key: key.didKey,
    alias: `${name}-member`,
    // The library benchmarks publish blueprints to import from (library:publish).
    scopes: ['library:read', 'library:write', 'library:publish'],
  });
  return {
    teamId: team_id,
    sign: memberSigner({ teamId: team_id, certificateB64: certificate_b64, key, aud: node.url }),
    async send(method, path, headers, body) {
      const response = await fetch(`${node.url}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body }),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response;
    },
  };
}
