/**
 * `GET /v1/events/stream?deadline=<RFC 3339>` (spec §4.5, §6): the calling identity's SSE stream.
 * The deadline is checked before the stream opens (422), and capped at now + 300 s. The frames'
 * payloads are declared in contract/core/events.ts (an SSE route has no JSON response schema).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EventStreamQuery } from '../../../../contract/core/events.ts';
import { identityOf } from '../../../http/route-auth.ts';
import { openSse, streamDeadline } from '../../../http/sse.ts';
import type { CoreServices } from '../services.ts';

export async function eventRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, identities, events } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/events/stream',
    {
      config: { auth: 'identity' },
      schema: {
        tags: ['events'],
        summary: "The caller's event stream (SSE): connected, pending mail, chat and control signals, then new ones as they come",
        querystring: EventStreamQuery,
      },
    },
    async (request, reply) => {
      const agent = identities.row(identityOf(request).agentId);
      const deadline = streamDeadline(request.query.deadline, ctx.clock.now());
      events.attach(agent, openSse(request, reply, deadline));
      return reply;
    },
  );
}
