/**
 * MCP at /mcp/ (Streamable HTTP, stateless, JSON responses). Bearer auth with an identity's key;
 * Host (and Origin) validation through the SDK's own hooks on top of the listener's guard. Only
 * the loopback listener mounts it: agents on this machine, never peers through a tunnel.
 */
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateIdentity } from '../../../auth/bearer.ts';
import type { CoreServices } from '../services.ts';
import { createMcpServer } from './server.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export async function mcpRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  app.addHook('onRequest', hostHeaderValidation(LOOPBACK_NAMES));
  app.addHook('onRequest', originValidation(LOOPBACK_NAMES));

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = authenticateIdentity(services.ctx, request);
    const server = createMcpServer({ services, principal });
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  };

  for (const url of ['/mcp/', '/mcp']) app.route({ method: ['POST', 'GET', 'DELETE'], url, handler: handle });
}
