/**
 * Chat routes (spec §4.4): every one takes a Bearer key bound to an identity. A session the
 * caller does not take part in does not exist for it (404), except on the stream, which answers
 * 403 as upstream does.
 */
import type { FastifyInstance } from 'fastify';
import { authenticateIdentity } from '../../../auth/bearer.ts';
import { parseRfc3339 } from '../../../crypto/timestamp.ts';
import { invalid } from '../../../errors.ts';
import { streamDeadline } from '../../../http/sse.ts';
import { parseWith } from '../../../http/validate.ts';
import type { CoreServices } from '../services.ts';
import { CreateSessionBody, HistoryQuery, MarkReadBody, SendMessageBody, SessionParams, SessionsQuery, StreamQuery } from './schemas.ts';
import { streamSession } from './stream.ts';

export async function chatRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, chat } = services;

  app.post('/v1/chat/sessions', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return chat.createOrSend(agentId, parseWith(CreateSessionBody, request.body));
  });

  app.get('/v1/chat/sessions', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return chat.listSessions(agentId, parseWith(SessionsQuery, request.query, 'query'));
  });

  app.get('/v1/chat/pending', async (request) => chat.pending(authenticateIdentity(ctx, request).agentId));

  app.get('/v1/chat/sessions/:session_id/messages', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    const { session_id } = parseWith(SessionParams, request.params, 'path');
    return chat.history(agentId, session_id, parseWith(HistoryQuery, request.query, 'query'));
  });

  app.post('/v1/chat/sessions/:session_id/messages', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    const { session_id } = parseWith(SessionParams, request.params, 'path');
    return chat.send(agentId, session_id, parseWith(SendMessageBody, request.body));
  });

  app.post('/v1/chat/sessions/:session_id/read', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    const { session_id } = parseWith(SessionParams, request.params, 'path');
    return chat.markRead(agentId, session_id, parseWith(MarkReadBody, request.body).up_to_message_id);
  });

  app.get('/v1/chat/sessions/:session_id/stream', async (request, reply) => {
    const { agentId } = authenticateIdentity(ctx, request);
    const { session_id } = parseWith(SessionParams, request.params, 'path');
    const query = parseWith(StreamQuery, request.query, 'query');
    const deadline = streamDeadline(query.deadline, ctx.clock.now());
    let after: string | null = null;
    if (query.after !== undefined) {
      const ms = parseRfc3339(query.after);
      if (ms === null) throw invalid([{ loc: ['query', 'after'], msg: 'after must be an RFC 3339 timestamp with a timezone', type: 'value_error' }]);
      after = new Date(ms).toISOString();
    }
    const viewer = chat.assertStreamable(agentId, session_id);
    streamSession(ctx, chat, request, reply, { viewer, sessionId: session_id, deadline, after });
    return reply;
  });
}
