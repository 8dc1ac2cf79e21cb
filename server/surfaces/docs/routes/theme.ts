/** GET /v1/theme (docs:read) and PUT /v1/theme (docs:write), research B6. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../../http/validate.ts';
import { memberWith, type DocsRouteOptions } from './options.ts';

const TEXT_MAX = 2000;

/** Unknown top-level keys are ignored (upstream); token entries are sanitised by the service. */
export const ThemeBody = z.object({
  tokens: z.record(z.string(), z.unknown()).optional(),
  preset: z.string().max(64).nullable().optional(),
  logo: z.strictObject({ content_type: z.string().max(100), data_base64: z.string() }).optional(),
  clear_logo: z.boolean().optional(),
  header: z.string().max(TEXT_MAX).nullable().optional(),
  footer: z.string().max(TEXT_MAX).nullable().optional(),
});

export async function themeRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.get('/v1/theme', async (request) => services.theme.get(memberWith(request, 'docs:read').team_id));

  app.put('/v1/theme', async (request) => {
    const member = memberWith(request, 'docs:write');
    return services.theme.put(member.team_id, parseWith(ThemeBody, request.body));
  });
}
