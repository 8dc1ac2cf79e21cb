/** GET /v1/billing (research B8): tier, caps and the team's usage. Never blocked. */
import type { FastifyInstance } from 'fastify';
import { memberWith, type DocsRouteOptions } from './options.ts';

export async function billingRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.get('/v1/billing', async (request) => services.billing.report(memberWith(request, 'docs:read').team_id));
}
