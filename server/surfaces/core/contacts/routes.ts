/**
 * Contacts routes (research/anchor-core.md §10.4), with a key bound to an identity.
 */
import type { FastifyInstance } from 'fastify';
import { authenticateIdentity } from '../../../auth/bearer.ts';
import { parseWith } from '../../../http/validate.ts';
import type { CoreServices } from '../services.ts';
import { ContactBody, ContactIdParams } from './schemas.ts';

export async function contactRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, contacts } = services;

  app.get('/v1/contacts', async (request) => contacts.list(authenticateIdentity(ctx, request).agentId));

  app.post('/v1/contacts', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return contacts.add(agentId, parseWith(ContactBody, request.body));
  });

  app.delete('/v1/contacts/:contact_id', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return contacts.remove(agentId, parseWith(ContactIdParams, request.params, 'path').contact_id);
  });
}
