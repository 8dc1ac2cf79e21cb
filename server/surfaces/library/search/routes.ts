/**
 * `GET /v1/search/library` (ours): a member with `library:read` searches its team's shelf
 * profiles and the public catalog's blueprints (names, descriptions, file contents).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { SearchQuery, SearchResults } from '../../../../contract/core/search.ts';
import { memberOf, teamRoute } from '../../../http/route-scope.ts';
import { refuseOwnerFilters, teamLibraryScope } from '../../../search/scopes.ts';
import type { LibraryRouteOptions } from '../route-options.ts';

export async function librarySearchRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/search/library',
    {
      config: teamRoute('library:read'),
      schema: {
        tags: ['search'],
        summary: "Searches the team's shelf profiles and the catalog's blueprints",
        querystring: SearchQuery,
        response: { 200: SearchResults },
      },
    },
    async (request) => {
      refuseOwnerFilters(request.query);
      return services.search.search(teamLibraryScope(memberOf(request).team_id), request.query);
    },
  );
}
