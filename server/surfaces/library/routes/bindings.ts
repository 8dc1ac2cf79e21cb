/**
 * Which agent wears which shelf profile version, and materialize: the home files for a runtime.
 */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../../http/validate.ts';
import { AgentParams, BindBody, MaterializeBody } from '../schemas.ts';
import { memberOf, type LibraryRouteOptions } from './options.ts';

export async function bindingRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { bindings } = services;
  const agentOf = (params: unknown): string => parseWith(AgentParams, params, 'path').agent_id;

  app.post('/v1/agents/:agent_id/profile-binding', async (request) =>
    bindings.bind(memberOf(request).team_id, agentOf(request.params), parseWith(BindBody, request.body)),
  );

  app.get('/v1/agents/:agent_id/profile-binding', async (request) => bindings.get(memberOf(request).team_id, agentOf(request.params)));

  app.get('/v1/profile-bindings', async (request) => ({ bindings: bindings.list(memberOf(request).team_id) }));

  app.post('/v1/materialize', async (request) => bindings.materialize(memberOf(request).team_id, parseWith(MaterializeBody, request.body)));
}
