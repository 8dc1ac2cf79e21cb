/**
 * `POST/GET /v1/events/subscriptions` and `DELETE /v1/events/subscriptions/{subscription_id}`
 * (DESIGN §5), with a key bound to an identity: what app events reach its event stream. Schemas
 * and auth are declared (contract/core/events.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EventSubscription, SubscriptionBody, SubscriptionIdParams, SubscriptionList, SubscriptionRemoved } from '../../../../../contract/core/events.ts';
import { identityOf } from '../../../../http/route-auth.ts';
import type { CoreServices } from '../../services.ts';

const tags = ['events'];

export async function subscriptionRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { subscriptions } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/events/subscriptions',
    {
      config: { auth: 'identity' },
      schema: {
        tags,
        summary: 'Subscribes to an app event type in a team (201; 200 with the one that already exists)',
        body: SubscriptionBody,
        response: { 200: EventSubscription, 201: EventSubscription },
      },
    },
    async (request, reply) => {
      const { subscription, created } = subscriptions.subscribe(identityOf(request).agentId, request.body);
      return reply.code(created ? 201 : 200).send(subscription);
    },
  );

  api.get(
    '/v1/events/subscriptions',
    { config: { auth: 'identity' }, schema: { tags, summary: "The caller's app event subscriptions", response: { 200: SubscriptionList } } },
    async (request) => subscriptions.list(identityOf(request).agentId),
  );

  api.delete(
    '/v1/events/subscriptions/:subscription_id',
    {
      config: { auth: 'identity' },
      schema: {
        tags,
        summary: 'Removes a subscription (404 when it is not the caller’s)',
        params: SubscriptionIdParams,
        response: { 200: SubscriptionRemoved },
      },
    },
    async (request) => subscriptions.remove(identityOf(request).agentId, request.params.subscription_id),
  );
}
