/**
 * Mail routes (spec §4.4): send, inbox, acknowledge; ours: Sent, archive and unarchive, delete
 * from the inbox, mark unread, and a body rendered as sanitised HTML (issue 14). Every call is
 * made with a key bound to an identity; a project-authority key is refused (403). The UI and
 * agents (MCP, tools/mail.ts) share these.
 */
import type { FastifyInstance } from 'fastify';
import { authenticateIdentity } from '../../../auth/bearer.ts';
import { parseWith } from '../../../http/validate.ts';
import type { CoreServices } from '../services.ts';
import { renderedBody } from './rendered.ts';
import { InboxQuery, MessageIdParams, SendMailBody, SentQuery } from './schemas.ts';

export async function mailRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, mail } = services;

  app.post('/v1/messages', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return mail.send(agentId, parseWith(SendMailBody, request.body));
  });

  app.get('/v1/messages/inbox', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return mail.inbox(agentId, parseWith(InboxQuery, request.query, 'query'));
  });

  // Ours: the caller's mail to other nodes, newest first, with its delivery state.
  app.get('/v1/messages/outbound', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return { messages: services.outbox.sentBy(agentId) };
  });

  app.post('/v1/messages/:message_id/ack', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return mail.ack(agentId, parseWith(MessageIdParams, request.params, 'path').message_id);
  });

  // ------------------------------------------------------------------ ours: folders (issue 14)

  app.get('/v1/messages/sent', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return mail.sent.list(agentId, parseWith(SentQuery, request.query, 'query'));
  });

  app.post('/v1/messages/:message_id/archive', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return mail.folders.archive(agentId, parseWith(MessageIdParams, request.params, 'path').message_id);
  });

  app.post('/v1/messages/:message_id/unarchive', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return mail.folders.unarchive(agentId, parseWith(MessageIdParams, request.params, 'path').message_id);
  });

  app.post('/v1/messages/:message_id/unread', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return mail.folders.markUnread(agentId, parseWith(MessageIdParams, request.params, 'path').message_id);
  });

  app.delete('/v1/messages/:message_id', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return mail.folders.remove(agentId, parseWith(MessageIdParams, request.params, 'path').message_id);
  });

  app.get('/v1/messages/:message_id/rendered', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return renderedBody(ctx.db, agentId, parseWith(MessageIdParams, request.params, 'path').message_id, request.listener);
  });
}
