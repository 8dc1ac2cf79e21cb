/**
 * `GET /v1/events/stream?deadline=<RFC 3339>` (spec §4.5, §6): the calling identity's SSE stream.
 * The deadline is checked before the stream opens (422), and capped at now + 300 s; a reconnect
 * past it is answered 204 (http/sse.ts). `Last-Event-ID` resumes after that frame (stream.ts).
 * The frames' payloads are declared in contract/core/events.ts (an SSE route has no JSON
 * response schema). An identity keeps at most STREAMS_PER_HOLDER streams open (events/stream-cap.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EventStreamQuery, IdentityStreamFrames, StreamResumeHeaders } from '../../../../../contract/core/events.ts';
import { identityOf } from '../../../../http/route-auth.ts';
import { endOfStream, openSse, streamWindow } from '../../../../http/sse.ts';
import type { CoreServices } from '../../services.ts';
import { identityStreamIds } from '../stream.ts';

export async function eventRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, identities, events, presence, teams } = services;
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
      const stream = openSse(request, reply, window, IdentityStreamFrames);
      // An open stream counts the identity online (MCP's list_agents).
      stream.onClose(presence.streamOpened(agent.agent_id));
      const caller = { agent_id: agent.agent_id, project_id: agent.project_id, ...teamOf(request.teamMember?.team_id, teams.teamsOf(agent)) };
      events.attach(caller, stream, { resume, credential: request.credentialCheck, upstreamNames: signedByUpstreamAuth(request.headers.authorization) });
      return reply;
    },
  );
}

/**
 * The `team_id` of `connected` (upstream's field): the team whose certificate opened the stream,
 * else the identity's one team; none for an identity in no team or several.
 */
function teamOf(certificateTeam: string | undefined, memberOf: readonly string[]): { team_id?: string } {
  const team = certificateTeam ?? (memberOf.length === 1 ? memberOf[0] : undefined);
  return team === undefined ? {} : { team_id: team };
}

/**
 * A stream opened with DIDKey (a team certificate or an identity signature) comes from upstream's
 * current clients, whose auth that is; they know the wake items only as `actionable_mail` and
 * `actionable_chat`. A Bearer stream is the spec's, whose clients (and upstream's older ones,
 * which used API keys) know `mail_message` and `chat_message`.
 */
function signedByUpstreamAuth(authorization: string | undefined): boolean {
  return authorization?.startsWith('DIDKey ') === true;
}
