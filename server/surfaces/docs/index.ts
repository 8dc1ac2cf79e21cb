/**
 * The document surface (spec §4.7) as one Fastify plugin, every route behind team-certificate
 * auth (spec §5 mode 3): `docs:read` for reads, `docs:write` for writes (DESIGN §4), each declared
 * in the route's config, except what is public by design (`auth: 'public'`): present pages,
 * assets by id, and the one-time video upload URL. Schemas are the contract's (contract/docs/).
 */
import type { FastifyInstance } from 'fastify';
import { enforceRouteScopes } from '../../http/route-scope.ts';
import { declareTeamSurface, type TeamAuthOptions } from '../../http/team-auth.ts';
import { assetRoutes, publicAssetRoutes, videoUploadRoutes } from './assets/routes.ts';
import { billingRoutes } from './billing/routes.ts';
import { documentRoutes } from './documents/routes/documents.ts';
import { documentSearchRoutes } from './search/routes.ts';
import { markdownRoutes } from './documents/routes/markdown.ts';
import { presentApiRoutes, presentPageRoutes } from './present/routes.ts';
import { templateRoutes } from './templates/routes.ts';
import { themeRoutes } from './theme/routes.ts';
import type { DocsServices } from './services.ts';

export interface DocsSurfaceOptions {
  services: DocsServices;
  auth: TeamAuthOptions;
}

export async function docsSurface(app: FastifyInstance, options: DocsSurfaceOptions): Promise<void> {
  await app.register(async (scoped) => {
    // Its team routes take envelopes addressed to this surface's origins (http/route-auth.ts checks them).
    declareTeamSurface(scoped, options.auth);
    // After auth, before validation: the scope each route declares (403 without it).
    enforceRouteScopes(scoped, 'document');
    await scoped.register(documentRoutes, options);
    // Its own context: the raw Markdown body parser must not leak to the JSON routes.
    await scoped.register(markdownRoutes, options);
    await scoped.register(templateRoutes);
    await scoped.register(billingRoutes, options);
    await scoped.register(presentApiRoutes, options);
    await scoped.register(themeRoutes, options);
    await scoped.register(assetRoutes, options);
    await scoped.register(documentSearchRoutes, options);
  });
  // Outside team auth: assets are public by id; a direct upload's one-time token is its capability.
  await app.register(publicAssetRoutes, options);
  await app.register(videoUploadRoutes, options);
  // Public: the token in the path is the capability, so these sit outside team auth.
  await app.register(presentPageRoutes, options);
}
