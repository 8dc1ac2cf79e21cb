/**
 * The owner's document settings (`/v1/node/docs/...`): the billing caps
 * (docs/adr/0006-library-and-document-surfaces.md). None by default (tier `active`); with caps set,
 * the node reports `free` and enforces them with a 402. Schemas: contract/docs/billing.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { BillingSettings, CapsBody } from '../../../../contract/docs/billing.ts';
import type { CoreServices } from '../../core/services.ts';
import { DocsBilling } from '../../docs/billing/service.ts';

const tags = ['owner'];

export async function docsOwnerRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const billing = new DocsBilling(services.ctx.db);
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/node/docs/billing',
    { config: { auth: 'owner' }, schema: { tags, summary: "The documents' tier and caps", response: { 200: BillingSettings } } },
    async () => billing.settings(),
  );

  api.put(
    '/v1/node/docs/billing',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: "Replaces the documents' caps (a quota left out is the default one)", body: CapsBody, response: { 200: BillingSettings } },
    },
    async (request) => billing.setCaps(request.body.caps),
  );
}
