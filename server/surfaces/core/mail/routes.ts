/**
 * Mail routes (spec §4.4): send, inbox, acknowledge; ours: Sent (and one Sent item by id),
 * archive and unarchive, delete from the inbox, mark unread, and a body rendered as sanitised HTML
 * (what a person reading mail daily expects). Every call is made with a key bound to an identity; a
 * project-authority key is refused (403). The UI and agents (MCP, tools/mail.ts) share these.
 * Schemas and auth are declared; the contract (contract/core/mail.ts) is the one definition.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  InboxPage,
  InboxQuery,
  MailAcknowledged,
  MailDeleted,
  MailFolderState,
  MessageIdParams,
  OutboundList,
  RenderedMail,
  SendMailBody,
  SendMailResult,
  SentMail,
  SentPage,
  SentQuery,
} from '../../../../contract/core/mail.ts';
import { identityOf } from '../../../http/route-auth.ts';
import type { CoreServices } from '../services.ts';
import { renderedBody } from './rendered.ts';

const tags = ['mail'];
const auth = 'identity';

export async function mailRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, mail } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/messages',
    {
      config: { auth },
      schema: { tags, summary: 'Sends mail to one or more recipients, each its own signed message', body: SendMailBody, response: { 200: SendMailResult } },
    },
    async (request) => mail.sendFindingKeys(identityOf(request).agentId, request.body),
  );

  api.get(
    '/v1/messages/inbox',
    {
      config: { auth },
      schema: { tags, summary: "The caller's mail, newest first (ours: ?folder=archive)", querystring: InboxQuery, response: { 200: InboxPage } },
    },
    async (request) => mail.inbox(identityOf(request).agentId, request.query),
  );

  // Ours: the caller's mail to other nodes, newest first, with its delivery state.
  api.get(
    '/v1/messages/outbound',
    { config: { auth }, schema: { tags, summary: "Ours: the caller's mail and chat to other nodes, with delivery state", response: { 200: OutboundList } } },
    async (request) => ({ messages: services.outbox.sentBy(identityOf(request).agentId) }),
  );

  api.post(
    '/v1/messages/:message_id/ack',
    {
      config: { auth },
      schema: { tags, summary: 'Marks a message read; again keeps the first time', params: MessageIdParams, response: { 200: MailAcknowledged } },
    },
    async (request) => mail.ack(identityOf(request).agentId, request.params.message_id),
  );

  // ------------------------------------------------------------------ ours: folders

  api.get(
    '/v1/messages/sent',
    {
      config: { auth },
      schema: { tags, summary: 'Ours: everything the caller sent, one item per recipient, newest first', querystring: SentQuery, response: { 200: SentPage } },
    },
    async (request) => mail.sent.list(identityOf(request).agentId, request.query),
  );

  // One Sent item by id, however long ago it was sent (a search hit, a link); another identity's is a 404.
  api.get(
    '/v1/messages/sent/:message_id',
    { config: { auth }, schema: { tags, summary: 'Ours: one mail the caller sent, as Sent lists it', params: MessageIdParams, response: { 200: SentMail } } },
    async (request) => mail.sent.one(identityOf(request).agentId, request.params.message_id),
  );

  api.post(
    '/v1/messages/:message_id/archive',
    {
      config: { auth },
      schema: { tags, summary: 'Ours: moves a message to the archive (and marks it read)', params: MessageIdParams, response: { 200: MailFolderState } },
    },
    async (request) => mail.folders.archive(identityOf(request).agentId, request.params.message_id),
  );

  api.post(
    '/v1/messages/:message_id/unarchive',
    {
      config: { auth },
      schema: { tags, summary: 'Ours: moves an archived message back to the inbox', params: MessageIdParams, response: { 200: MailFolderState } },
    },
    async (request) => mail.folders.unarchive(identityOf(request).agentId, request.params.message_id),
  );

  api.post(
    '/v1/messages/:message_id/unread',
    {
      config: { auth },
      schema: { tags, summary: 'Ours: marks a message unread (back in the inbox)', params: MessageIdParams, response: { 200: MailFolderState } },
    },
    async (request) => mail.folders.markUnread(identityOf(request).agentId, request.params.message_id),
  );

  api.delete(
    '/v1/messages/:message_id',
    {
      config: { auth },
      schema: {
        tags,
        summary: "Ours: deletes a message from the caller's inbox (the sender keeps its copy)",
        params: MessageIdParams,
        response: { 200: MailDeleted },
      },
    },
    async (request) => mail.folders.remove(identityOf(request).agentId, request.params.message_id),
  );

  api.get(
    '/v1/messages/:message_id/rendered',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Ours: the body as sanitised HTML (Markdown, images as their alt text)',
        params: MessageIdParams,
        response: { 200: RenderedMail },
      },
    },
    async (request) => renderedBody(ctx.db, identityOf(request).agentId, request.params.message_id, request.listener),
  );
}
