/**
 * Mail routes (spec §4.4): send, inbox, acknowledge. Every call is made with a key bound to an
 * identity; a project-authority key is refused (403).
 */
import type { FastifyInstance } from 'fastify';
import { authenticateIdentity } from '../../../auth/bearer.ts';
import { parseWith } from '../../../http/validate.ts';
import type { CoreServices } from '../services.ts';
import { InboxQuery, MessageIdParams, SendMailBody } from './schemas.ts';

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
}
