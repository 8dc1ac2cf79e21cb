/**
 * Federation inbound (DESIGN §8): `POST /v1/federation/messages` and, for many at once,
 * `POST /v1/federation/messages/batch`, served on the loopback and peer listeners alike. No
 * credential: each message carries its sender's signature, and inbound.ts checks it and the
 * sender's address before anything is stored. Their wire schemas are contract/core/federation.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { FederatedMessage, FederationBatch, FederationBatchResult, InboundResult } from '../../contract/core/federation.ts';
import type { FederationBatches } from './inbound-batch.ts';

/**
 * What the routes call: the inbound batches. The core's container satisfies it and the core
 * surface registers the routes with it, so federation does not reach up into the core.
 */
export interface FederationRouteServices {
  batches: Pick<FederationBatches, 'single' | 'receive'>;
}

export async function federationRoutes(app: FastifyInstance, { services }: { services: FederationRouteServices }): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/federation/messages',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['federation'],
        summary: 'Mail or a chat message from another node, signed by its sender (checked before it is stored)',
        body: FederatedMessage,
        response: { 200: InboundResult },
      },
    },
    async (request) => services.batches.single(request.body, request.clientBudget ?? null),
  );
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/federation/messages/batch',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['federation'],
        summary: 'Up to 64 messages from another node, each signed by its sender, checked and answered on its own',
        body: FederationBatch,
        response: { 200: FederationBatchResult },
      },
    },
    async (request) => services.batches.receive(request.body, request.clientBudget ?? null),
  );
}
