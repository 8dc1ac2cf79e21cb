/**
 * The owner's tunnel (`/v1/node/tunnel`, DESIGN §8): the SSH account to use, the node's public key
 * for its authorized_keys, start, stop and the live status (also nudged on the owner feed as
 * `tunnel_changed`). Schemas: contract/node/tunnel.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { TunnelConfigBody, TunnelView } from '../../../../contract/node/tunnel.ts';
import type { TunnelService } from '../../../tunnel/service.ts';

const tags = ['owner'];
const response = { 200: TunnelView };

export async function tunnelRoutes(app: FastifyInstance, { tunnel }: { tunnel: TunnelService }): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/node/tunnel',
    { config: { auth: 'owner' }, schema: { tags, summary: "The tunnel's settings, the node's SSH public key and the status", response } },
    async () => tunnel.view(),
  );

  // PUT replaces the whole configuration; null (or absent) clears the optional fields.
  api.put(
    '/v1/node/tunnel',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Saves the SSH account to use; a running tunnel restarts with it', body: TunnelConfigBody, response },
    },
    async (request) => {
      const { public_url, host_key_sha256, ...config } = request.body;
      return tunnel.configure({ ...config, ...(public_url ? { public_url } : {}), ...(host_key_sha256 ? { host_key_sha256 } : {}) });
    },
  );

  api.post(
    '/v1/node/tunnel/start',
    { config: { auth: 'owner' }, schema: { tags, summary: 'Starts the tunnel (answers at once, usually connecting); 409 without settings', response } },
    async () => tunnel.start(),
  );

  api.post(
    '/v1/node/tunnel/stop',
    { config: { auth: 'owner' }, schema: { tags, summary: 'Stops the tunnel, or cancels a connection under way', response } },
    async () => tunnel.stop(),
  );
}
