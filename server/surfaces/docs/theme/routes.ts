/** GET /v1/theme (docs:read) and PUT /v1/theme (docs:write), as upstream routes them. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Theme, ThemeBody } from '../../../../contract/docs/theme.ts';
import { memberOf } from '../../../http/route-scope.ts';
import { team, type DocsRouteOptions } from '../route-options.ts';

const tags = ['theme'];

export async function themeRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/v1/theme', { config: team('docs:read'), schema: { tags, summary: 'The team’s document theme', response: { 200: Theme } } }, async (request) =>
    services.theme.get(memberOf(request).team_id),
  );

  api.put(
    '/v1/theme',
    {
      config: team('docs:write'),
      schema: { tags, summary: 'Replaces the theme (the logo stays unless changed); refused below WCAG AA', body: ThemeBody, response: { 200: Theme } },
    },
    async (request) => services.theme.put(memberOf(request).team_id, request.body),
  );
}
