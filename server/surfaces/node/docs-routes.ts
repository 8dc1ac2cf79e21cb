/**
 * The owner's document settings (`/v1/node/docs/...`): the billing caps (research B8, C5). None by
 * default (tier `active`); with caps set, the node reports `free` and enforces them with a 402.
 */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../http/validate.ts';
import type { CoreServices } from '../core/services.ts';
import { DocsBilling } from '../docs/billing.ts';
import { CapsBody } from '../docs/schemas.ts';

export async function docsOwnerRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const billing = new DocsBilling(services.ctx.db);

  app.get('/v1/node/docs/billing', async () => billing.settings());

  app.put('/v1/node/docs/billing', async (request) => billing.setCaps(parseWith(CapsBody, request.body).caps));
}
