/**
 * `GET /v1/search/documents` (ours): a member with `docs:read` searches its team's documents,
 * current versions first, older ones findable and ranked lower.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { SearchQuery, SearchResults } from '../../../../contract/core/search.ts';
import { memberOf } from '../../../http/route-scope.ts';
import { refuseOwnerFilters, teamDocumentsScope } from '../../../search/scopes.ts';
import { team, type DocsRouteOptions } from '../route-options.ts';

export async function documentSearchRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/search/documents',
    {
      config: team('docs:read'),
      schema: {
        tags: ['search'],
        summary: "Searches the team's documents (title, slug, body; older versions ranked lower)",
        querystring: SearchQuery,
        response: { 200: SearchResults },
      },
    },
    async (request) => {
      refuseOwnerFilters(request.query);
      return services.search.search(teamDocumentsScope(memberOf(request).team_id), request.query);
    },
  );
}
