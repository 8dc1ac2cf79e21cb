/**
 * The owner's tunnel (`/v1/node/tunnel`, DESIGN §8): the SSH account to use, the node's public key
 * for its authorized_keys, start, stop and the live status (also nudged on the owner feed as
 * `tunnel_changed`).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HOST_KEY_RULE, HOST_KEY_SHA256, publicUrlProblem, TUNNEL_HOST, TUNNEL_HOST_RULE, TUNNEL_USER, TUNNEL_USER_RULE } from '../../../contract/core-rules.ts';
import { parseWith } from '../../http/validate.ts';
import type { TunnelService } from '../../tunnel/service.ts';
import { ruled } from './schemas.ts';

// The rules and their words are the contract's (contract/core-rules.ts): Settings checks the form with them.
const portRule = (min: number) => `use a whole number from ${min} to 65535`;
const port = (min: number) => z.number().int(portRule(min)).min(min, portRule(min)).max(65535, portRule(min));

const TunnelConfigBody = z.strictObject({
  host: z.string().regex(TUNNEL_HOST, TUNNEL_HOST_RULE),
  port: port(1).optional(),
  username: z.string().regex(TUNNEL_USER, TUNNEL_USER_RULE),
  remote_port: port(0),
  remote_bind_host: z.string().max(255).optional(),
  public_url: ruled(publicUrlProblem).nullable().optional(),
  host_key_sha256: z.string().regex(HOST_KEY_SHA256, HOST_KEY_RULE).nullable().optional(),
});

export async function tunnelRoutes(app: FastifyInstance, { tunnel }: { tunnel: TunnelService }): Promise<void> {
  app.get('/v1/node/tunnel', async () => tunnel.view());
  // PUT replaces the whole configuration; null (or absent) clears the optional fields.
  app.put('/v1/node/tunnel', async (request) => {
    const { public_url, host_key_sha256, ...config } = parseWith(TunnelConfigBody, request.body);
    return tunnel.configure({ ...config, ...(public_url ? { public_url } : {}), ...(host_key_sha256 ? { host_key_sha256 } : {}) });
  });
  app.post('/v1/node/tunnel/start', async () => tunnel.start());
  app.post('/v1/node/tunnel/stop', async () => tunnel.stop());
}
