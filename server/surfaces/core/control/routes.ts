/**
 * `POST /v1/agents/{alias}/control` (spec §4.5): `{alias}` is an identity of the caller's project.
 * Schemas and auth are declared (contract/core/control.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ControlBody, ControlParams, ControlSent } from '../../../../contract/core/control.ts';
import { identityOf } from '../../../http/route-auth.ts';
import type { CoreServices } from '../services.ts';

export async function controlRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { control } = services;

  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/agents/:alias/control',
    {
      config: { auth: 'identity' },
      schema: {
        tags: ['control'],
        summary: "Queues pause, resume or interrupt for an identity of the caller's project (delivered once, on its event stream)",
        params: ControlParams,
        body: ControlBody,
        response: { 200: ControlSent },
      },
    },
    async (request) => control.send(identityOf(request).agentId, request.params.alias, request.body.signal),
  );
}
