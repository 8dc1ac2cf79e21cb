/**
 * The owner feed (`GET /v1/node/events/stream`): new mail and chat for every identity, live: the
 * UI's badges and highlights; and nudges that something the UI shows changed (whoever changed
 * it), so it re-reads it. Its frames are NodeFeedFrames (core/events/node-feed.ts), from the
 * core's wake feed.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EventStreamQuery, NodeFeedFrames, StreamResumeHeaders } from '../../../../contract/core/events.ts';
import type { NodeInfo } from '../../../../contract/node/owner.ts';
import { endOfStream, openSse, streamWindow } from '../../../http/sse.ts';
import { feedIds } from '../../core/events/node-feed.ts';
import type { CoreServices } from '../../core/services.ts';

const tags = ['owner'];

export async function feedRoutes(app: FastifyInstance, { services, nodeInfo }: { services: CoreServices; nodeInfo: () => NodeInfo }): Promise<void> {
  const { owner, wakeFeed, ctx } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  // An SSE stream: its `deadline` is checked as every stream's is (http/sse.ts). `Last-Event-ID`
  // resumes the mail and chat after that frame.
  api.get(
    '/v1/node/events/stream',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'The owner feed (SSE): new mail and chat for every identity, and what changed (contract/core/events.ts)',
        querystring: EventStreamQuery,
        headers: StreamResumeHeaders,
      },
    },
    async (request, reply) => {
      const window = streamWindow(request, request.query.deadline, ctx.clock.now());
      if (window === null) return endOfStream(reply);
      const resume = feedIds.decode(request.headers['last-event-id']);
      // A browser session revoked meanwhile ends the stream; the owner token lasts the process.
      const session = request.ownerSession ?? null;
      const credential = session === null ? undefined : () => owner.sessions.check(session);
      wakeFeed.attach(openSse(request, reply, window, NodeFeedFrames), nodeInfo().node_id, resume, credential);
      return reply;
    },
  );
}
