/**
 * MCP at /mcp (and /mcp/; Streamable HTTP, stateless), declared `identity`: Bearer auth with an
 * identity's key, or a DIDKey signature (team certificate or identity-only) as on REST
 * (http/route-auth.ts, whose hook runs before the handler as on every route); Host
 * (and Origin) validation through the SDK's own hooks on top of the listener's guard. Only the
 * loopback listener mounts it: agents on this machine, never peers through a tunnel.
 *
 * POST carries every request; a stateless server has no notifications of its own to push and no
 * session to end, so GET and DELETE are answered 405 (Allow: POST), as the transport specifies.
 *
 * The routes are registered at start, but the SDK (runtime.ts) is imported at the first /mcp
 * request, so it does not slow every start of the node; a failed import is an ordinary error
 * that the JSON error handler answers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../../errors.ts';
import { identityOf } from '../../../http/route-auth.ts';
import { lazily } from '../../../lazy.ts';
import type { CoreServices } from '../services.ts';
import { InFlightRequests } from './cancellation.ts';
import type * as RuntimeModule from './runtime.ts';

const runtime = lazily<typeof RuntimeModule>(() => import('./runtime.ts'));

const PATHS = ['/mcp', '/mcp/'];

export async function mcpRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  app.addHook('onRequest', async (request, reply) => (await runtime()).checkHost(request, reply));
  app.addHook('onRequest', async (request, reply) => (await runtime()).checkOrigin(request, reply));
  // The requests being answered, so a cancellation in a later POST reaches its request.
  const inFlight = new InFlightRequests();

  // Declared `identity`: the route-auth hook has put the caller on the request (a repeated signed
  // write has been answered there and never reaches these handlers).
  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    await (await runtime()).handleMcp({ services, principal: identityOf(request) }, inFlight, request, reply);
  };
  const refuse = async (request: FastifyRequest): Promise<never> => {
    const what = request.method === 'GET' ? 'no server-initiated stream' : 'no session to end';
    throw new ServiceError('SVC_ERR_MCP_METHOD_NOT_ALLOWED', `This MCP server is stateless: POST every request (there is ${what})`, { allow: 'POST' });
  };

  for (const url of PATHS) {
    app.route({ method: 'POST', url, config: { auth: 'identity' }, handler: handle });
    app.route({ method: ['GET', 'DELETE'], url, config: { auth: 'identity' }, handler: refuse });
  }
}
