/** GET /v1/billing, as upstream answers it: tier, caps and the team's usage. Never blocked. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Billing } from '../../../../contract/docs/billing.ts';
import { memberOf } from '../../../http/route-scope.ts';
import { team, type DocsRouteOptions } from '../route-options.ts';

export async function billingRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/v1/billing',
      { config: team('docs:read'), schema: { tags: ['billing'], summary: 'The tier, the caps and the team’s usage', response: { 200: Billing } } },
      async (request) => services.billing.report(memberOf(request).team_id),
    );
}
