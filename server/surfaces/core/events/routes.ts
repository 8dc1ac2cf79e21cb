/**
 * `GET /v1/events/stream?deadline=<RFC 3339>` (spec §4.5, §6): the calling identity's SSE stream.
 * The deadline is checked before the stream opens (422), and capped at now + 300 s.
 */
import type { FastifyInstance } from 'fastify';
import { authenticateIdentity } from '../../../auth/bearer.ts';
import { openSse, streamDeadline } from '../../../http/sse.ts';
import type { CoreServices } from '../services.ts';

export async function eventRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, identities, events } = services;
  app.get('/v1/events/stream', async (request, reply) => {
    const { agentId } = authenticateIdentity(ctx, request);
    const agent = identities.row(agentId);
    const deadline = streamDeadline((request.query as Record<string, unknown>).deadline, ctx.clock.now());
    events.attach(agent, openSse(request, reply, deadline));
    return reply;
  });
}
