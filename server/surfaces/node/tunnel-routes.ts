/**
 * The owner's tunnel (`/v1/node/tunnel`, DESIGN §8): the SSH account to use, the node's public key
 * for its authorized_keys, start, stop and the live status (also nudged on the owner feed as
 * `tunnel_changed`).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../http/validate.ts';
import type { TunnelService } from '../../tunnel/service.ts';

const HOST = /^[A-Za-z0-9.-]{1,253}$|^\[?[0-9A-Fa-f:.]{2,45}\]?$/;

const TunnelConfigBody = z.strictObject({
  host: z.string().regex(HOST, 'must be a host name or IP address'),
  port: z.number().int().min(1).max(65535).optional(),
  username: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'must be an account name (letters, digits, ".", "_" or "-")'),
  remote_port: z.number().int().min(0).max(65535),
  remote_bind_host: z.string().max(255).optional(),
  public_url: z.url({ protocol: /^https?$/ }).max(2048).nullable().optional(),
  host_key_sha256: z
    .string()
    .regex(/^(SHA256:)?[A-Za-z0-9+/]{43}=?$/, 'must be a SHA256 host key fingerprint as ssh-keygen -lf prints it')
    .nullable()
    .optional(),
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
