/**
 * `POST/GET /v1/events/subscriptions` and `DELETE /v1/events/subscriptions/{subscription_id}`
 * (DESIGN §5), with a key bound to an identity: what app events reach its event stream.
 */
import type { FastifyInstance } from 'fastify';
import { authenticateIdentity } from '../../../auth/bearer.ts';
import { parseWith } from '../../../http/validate.ts';
import type { CoreServices } from '../services.ts';
import { SubscriptionBody, SubscriptionIdParams } from './subscriptions-schemas.ts';

export async function subscriptionRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, subscriptions } = services;

  app.post('/v1/events/subscriptions', async (request, reply) => {
    const { agentId } = authenticateIdentity(ctx, request);
    const { subscription, created } = subscriptions.subscribe(agentId, parseWith(SubscriptionBody, request.body));
    return reply.code(created ? 201 : 200).send(subscription);
  });

  app.get('/v1/events/subscriptions', async (request) => subscriptions.list(authenticateIdentity(ctx, request).agentId));

  app.delete('/v1/events/subscriptions/:subscription_id', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    return subscriptions.remove(agentId, parseWith(SubscriptionIdParams, request.params, 'path').subscription_id);
  });
}
