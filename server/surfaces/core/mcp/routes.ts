/**
 * MCP at /mcp/ (Streamable HTTP, stateless, JSON responses). Bearer auth with an identity's key;
 * Host (and Origin) validation through the SDK's own hooks on top of the listener's guard. Only
 * the loopback listener mounts it: agents on this machine, never peers through a tunnel.
 *
 * The routes are registered at start, but the SDK (runtime.ts) is imported at the first /mcp
 * request, so it does not slow every start of the node; a failed import is an ordinary error
 * that the JSON error handler answers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateIdentity } from '../../../auth/bearer.ts';
import { lazily } from '../../../lazy.ts';
import type { CoreServices } from '../services.ts';
import type * as RuntimeModule from './runtime.ts';

const runtime = lazily<typeof RuntimeModule>(() => import('./runtime.ts'));

export async function mcpRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  app.addHook('onRequest', async (request, reply) => (await runtime()).checkHost(request, reply));
  app.addHook('onRequest', async (request, reply) => (await runtime()).checkOrigin(request, reply));

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = authenticateIdentity(services.ctx, request);
    await (await runtime()).handleMcp({ services, principal }, request, reply);
  };

  for (const url of ['/mcp/', '/mcp']) app.route({ method: ['POST', 'GET', 'DELETE'], url, handler: handle });
}
