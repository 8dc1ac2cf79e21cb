/**
 * `POST /v1/agents/{alias}/control` (spec §4.5): `{alias}` is an identity of the caller's project.
 */
import type { FastifyInstance } from 'fastify';
import { authenticateIdentity } from '../../../auth/bearer.ts';
import { parseWith } from '../../../http/validate.ts';
import type { CoreServices } from '../services.ts';
import { ControlBody, ControlParams } from './schemas.ts';

export async function controlRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, control } = services;

  app.post('/v1/agents/:alias/control', async (request) => {
    const { agentId } = authenticateIdentity(ctx, request);
    const { alias } = parseWith(ControlParams, request.params, 'path');
    return control.send(agentId, alias, parseWith(ControlBody, request.body).signal);
  });
}
