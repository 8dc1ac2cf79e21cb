/**
 * Chat routes (spec §4.4): every one takes a Bearer key bound to an identity. A session the
 * caller does not take part in does not exist for it (404), except on the stream, which answers
 * 403 as upstream does. Schemas and auth are declared; the contract (contract/core/chat.ts) is
 * the one definition, the stream's frames included.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ChatHistory,
  ChatReadMarked,
  ChatSessionsPage,
  CreateSessionBody,
  HistoryQuery,
  MarkReadBody,
  Pending,
  SendChatResult,
  SendMessageBody,
  SessionParams,
  SessionsQuery,
  StartChatResult,
  StreamQuery,
} from '../../../../contract/core/chat.ts';
import { StreamResumeHeaders } from '../../../../contract/core/events.ts';
import { identityOf } from '../../../http/route-auth.ts';
import { endOfStream, streamWindow } from '../../../http/sse.ts';
import type { CoreServices } from '../services.ts';
import { sessionStreamIds, streamSession } from './stream.ts';

const tags = ['chat'];
const auth = 'identity';

export async function chatRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, chat } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/chat/sessions',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Create-or-send: a message to these participants (a two-party session is reused)',
        body: CreateSessionBody,
        response: { 200: StartChatResult },
      },
    },
    async (request) => chat.createOrSendFindingKeys(identityOf(request).agentId, request.body),
  );

  api.get(
    '/v1/chat/sessions',
    {
      config: { auth },
      schema: { tags, summary: "The caller's sessions, newest activity first (ours: paged)", querystring: SessionsQuery, response: { 200: ChatSessionsPage } },
    },
    async (request) => chat.listSessions(identityOf(request).agentId, request.query),
  );

  api.get(
    '/v1/chat/pending',
    { config: { auth }, schema: { tags, summary: 'Sessions with unread messages or someone waiting, and the unread mail count', response: { 200: Pending } } },
    async (request) => chat.pending(identityOf(request).agentId),
  );

  api.get(
    '/v1/chat/sessions/:session_id/messages',
    {
      config: { auth },
      schema: {
        tags,
        summary: "A session's newest messages, oldest first, and each participant's state",
        params: SessionParams,
        querystring: HistoryQuery,
        response: { 200: ChatHistory },
      },
    },
    async (request) => chat.history(identityOf(request).agentId, request.params.session_id, request.query),
  );

  api.post(
    '/v1/chat/sessions/:session_id/messages',
    {
      config: { auth },
      schema: { tags, summary: 'A message to every other participant', params: SessionParams, body: SendMessageBody, response: { 200: SendChatResult } },
    },
    async (request) => chat.sendFindingKeys(identityOf(request).agentId, request.params.session_id, request.body),
  );

  api.post(
    '/v1/chat/sessions/:session_id/read',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Marks the session read up to a message (monotonic)',
        params: SessionParams,
        body: MarkReadBody,
        response: { 200: ChatReadMarked },
      },
    },
    async (request) => chat.markRead(identityOf(request).agentId, request.params.session_id, request.body.up_to_message_id),
  );

  // Server-sent events (frames: ChatMessageFrame, ReadReceipt, StreamError, StreamDeadline in the contract): no JSON response to declare.
  // `Last-Event-ID` resumes after that frame in place of `after`; a reconnect past the deadline is a 204.
  api.get(
    '/v1/chat/sessions/:session_id/stream',
    {
      config: { auth },
      schema: {
        tags,
        summary: "The session's live stream (SSE): message and read_receipt frames",
        params: SessionParams,
        querystring: StreamQuery,
        headers: StreamResumeHeaders,
      },
    },
    async (request, reply) => {
      const { agentId } = identityOf(request);
      const { session_id } = request.params;
      const window = streamWindow(request, request.query.deadline, ctx.clock.now());
      if (window === null) return endOfStream(reply);
      const resume = sessionStreamIds.decode(request.headers['last-event-id']);
      const after = request.query.after ?? null;
      const viewer = chat.assertStreamable(agentId, session_id);
      streamSession(ctx, chat, request, reply, { viewer, sessionId: session_id, window, after, resume });
      return reply;
    },
  );
}
