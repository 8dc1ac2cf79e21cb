/**
 * `GET /v1/events/stream?deadline=<RFC 3339>` (spec §4.5, §6): the calling identity's SSE stream.
 * The deadline is checked before the stream opens (422), and capped at now + 300 s; a reconnect
 * past it is answered 204 (http/sse.ts). `Last-Event-ID` resumes after that frame (stream.ts).
 * The frames' payloads are declared in contract/core/events.ts (an SSE route has no JSON
 * response schema).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EventStreamQuery, StreamResumeHeaders } from '../../../../contract/core/events.ts';
import { identityOf } from '../../../http/route-auth.ts';
import { endOfStream, openSse, streamWindow } from '../../../http/sse.ts';
import type { CoreServices } from '../services.ts';
import { identityStreamIds } from './stream.ts';

export async function eventRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, identities, events, presence } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/events/stream',
    {
      config: { auth: 'identity' },
      schema: {
        tags: ['events'],
        summary: "The caller's event stream (SSE): connected, pending mail, chat and control signals, then new ones as they come",
        querystring: EventStreamQuery,
        headers: StreamResumeHeaders,
      },
    },
    async (request, reply) => {
      const agent = identities.row(identityOf(request).agentId);
      const window = streamWindow(request, request.query.deadline, ctx.clock.now());
      if (window === null) return endOfStream(reply);
      const resume = identityStreamIds.decode(request.headers['last-event-id']);
      const stream = openSse(request, reply, window);
      // An open stream counts the identity online (MCP's list_agents).
      stream.onClose(presence.streamOpened(agent.agent_id));
      events.attach(agent, stream, resume, request.credentialCheck);
      return reply;
    },
  );
}
