/**
 * Contacts routes (upstream's `/v1/contacts`), with a key bound to an identity. Schemas and
 * auth are declared; the contract (contract/core/contacts.ts) is the one definition.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Contact, ContactBody, ContactIdParams, ContactList, ContactRemoved } from '../../../../contract/core/contacts.ts';
import { identityOf } from '../../../http/route-auth.ts';
import type { CoreServices } from '../services.ts';

const tags = ['contacts'];

export async function contactRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { contacts } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/contacts',
    { config: { auth: 'identity' }, schema: { tags, summary: "The caller's contacts, oldest first", response: { 200: ContactList } } },
    async (request) => contacts.list(identityOf(request).agentId),
  );

  api.post(
    '/v1/contacts',
    { config: { auth: 'identity' }, schema: { tags, summary: 'Adds a contact (409 when it is one already)', body: ContactBody, response: { 200: Contact } } },
    async (request) => contacts.add(identityOf(request).agentId, request.body),
  );

  api.delete(
    '/v1/contacts/:contact_id',
    { config: { auth: 'identity' }, schema: { tags, summary: 'Removes a contact; idempotent', params: ContactIdParams, response: { 200: ContactRemoved } } },
    async (request) => contacts.remove(identityOf(request).agentId, request.params.contact_id),
  );
}
