/**
 * Federation inbound (DESIGN §8): `POST /v1/federation/messages`, served on the loopback and peer
 * listeners alike. No credential: the message carries its sender's signature, and inbound.ts
 * checks it and the sender's address before anything is stored.
 */
import type { FastifyInstance } from 'fastify';
import type { CoreServices } from '../surfaces/core/services.ts';

export async function federationRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  app.post('/v1/federation/messages', async (request) => services.inbound.receive(request.body));
}
