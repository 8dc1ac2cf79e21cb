/**
 * `GET /health`, as upstream's registry answers it, so the same monitors work:
 * `{status, version, checks}`, 200 while the database answers, 503 with `status: "unhealthy"` when
 * it does not. No credential; served on the loopback and the peer listener (monitors and tunnels
 * probe it).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Health } from '../../../../contract/core/health.ts';
import type { CoreServices } from '../services.ts';

export async function healthRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/health',
    {
      config: { auth: 'public' },
      schema: { tags: ['node'], summary: 'Whether the node and its database answer, and its version', response: { 200: Health, 503: Health } },
    },
    async (_request, reply) => {
      const health = services.health.check();
      return reply.code(health.status === 'ok' ? 200 : 503).send(health);
    },
  );
}
