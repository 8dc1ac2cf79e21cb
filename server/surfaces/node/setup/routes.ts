/**
 * `POST /v1/node/setup {name, domain?}` (owner API): the first-run flow's one step (service.ts).
 * 201 with what the UI shows next (the identity and the address to share); 200 when the node was
 * already set up with this very name and domain. Schemas: contract/node/setup.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { SetupBody, SetupResult } from '../../../../contract/node/setup.ts';
import type { CoreServices } from '../../core/services.ts';
import { NodeSetup } from './service.ts';

export async function setupRoutes(app: FastifyInstance, { services, nodeId }: { services: CoreServices; nodeId: string }): Promise<void> {
  const setup = new NodeSetup(services, nodeId);
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/node/setup',
    {
      config: { auth: 'owner' },
      schema: {
        tags: ['owner'],
        summary: 'Sets the node up in one step: a namespace, a project and a persistent identity (201; 200 when it already is, as asked)',
        body: SetupBody,
        response: { 200: SetupResult, 201: SetupResult },
      },
    },
    async (request, reply) => {
      const result = await setup.run(request.body);
      return reply.code(result.created ? 201 : 200).send(result);
    },
  );
}
