/**
 * Which agent wears which shelf profile version, and materialize: the home files for a runtime.
 * Schemas and auth are declared; the contract (contract/library/bindings.ts, materialize.ts) is
 * the one definition.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AgentParams, BindBody, Binding, BindingList } from '../../../../contract/library/bindings.ts';
import { MaterializeBody, Materialized } from '../../../../contract/library/materialize.ts';
import { memberOf, teamRoute } from '../../../http/route-scope.ts';
import { type LibraryRouteOptions } from '../route-options.ts';

const tags = ['bindings'];

export async function bindingRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { bindings } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/agents/:agent_id/profile-binding',
    {
      config: teamRoute('library:write'),
      schema: {
        tags,
        summary: 'Binds an agent to a shelf profile version (default latest); replaces its binding',
        params: AgentParams,
        body: BindBody,
        response: { 200: Binding },
      },
    },
    async (request) => bindings.bind(memberOf(request).team_id, request.params.agent_id, request.body),
  );

  api.get(
    '/v1/agents/:agent_id/profile-binding',
    { config: teamRoute('library:read'), schema: { tags, summary: "An agent's binding", params: AgentParams, response: { 200: Binding } } },
    async (request) => bindings.get(memberOf(request).team_id, request.params.agent_id),
  );

  api.get(
    '/v1/profile-bindings',
    { config: teamRoute('library:read'), schema: { tags, summary: 'Every binding of the team, by agent_id', response: { 200: BindingList } } },
    async (request) => ({ bindings: bindings.list(memberOf(request).team_id) }),
  );

  api.post(
    '/v1/materialize',
    {
      config: teamRoute('library:read'),
      schema: {
        tags,
        summary: "The home files a runtime writes for an agent's binding or a named profile version; writes nothing",
        body: MaterializeBody,
        response: { 200: Materialized },
      },
    },
    async (request) => bindings.materialize(memberOf(request).team_id, request.body),
  );
}
