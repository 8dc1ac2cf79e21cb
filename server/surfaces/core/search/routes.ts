/**
 * `GET /v1/search` (ours): an identity searches its own mail (received and sent) and the chats
 * it is in, as its reads show them; Bearer or DIDKey (http/route-auth.ts). The MCP tool `search`
 * is the same call.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { SearchQuery, SearchResults } from '../../../../contract/core/search.ts';
import { identityOf } from '../../../http/route-auth.ts';
import { identityScope, refuseOwnerFilters } from '../../../search/scopes.ts';
import type { CoreServices } from '../services.ts';

export async function searchRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/v1/search',
    {
      config: { auth: 'identity' },
      schema: {
        tags: ['search'],
        summary:
          'Searches the caller\'s mail (received and sent) and the chats it is in: words, prefixes (contr*), "phrases", AND/OR/NOT, -word; filters; relevance or recency',
        querystring: SearchQuery,
        response: { 200: SearchResults },
      },
    },
    async (request) => {
      refuseOwnerFilters(request.query);
      return services.search.search(identityScope(identityOf(request).agentId), request.query);
    },
  );
}
