/**
 * `GET /v1/node/search`: the owner's app searches everything this node holds, every
 * identity's mail and chats and every team's documents and shelf, or one identity's (`agent_id`)
 * or one team's (`team`): the command palette and the search fields of Mail, Documents and Shelf.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { SearchQuery, SearchResults } from '../../../../contract/core/search.ts';
import { ownerScope } from '../../../search/scopes.ts';
import type { CoreServices } from '../../core/services.ts';

export async function ownerSearchRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/node/search',
    {
      config: { auth: 'owner' },
      schema: {
        tags: ['owner'],
        summary: "Searches everything this node holds, or one identity's (agent_id) or one team's (team)",
        querystring: SearchQuery,
        response: { 200: SearchResults },
      },
    },
    async (request) => services.search.search(ownerScope(request.query), request.query),
  );
}
