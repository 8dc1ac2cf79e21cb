/**
 * The library surface (spec §4.6) as one Fastify plugin: the three public catalog reads, and
 * everything else behind team-certificate auth (spec §5 mode 3, server/auth/team-envelope.ts)
 * and the scope each route declares in its config (server/http/route-scope.ts).
 */
import type { FastifyInstance } from 'fastify';
import { enforceRouteScopes } from '../../http/route-scope.ts';
import { declareTeamSurface, type TeamAuthOptions } from '../../http/team-auth.ts';
import { bindingRoutes } from './bindings/routes.ts';
import { catalogWriteRoutes, publicCatalogRoutes } from './catalog/routes.ts';
import { proposalRoutes } from './proposals/routes.ts';
import { librarySearchRoutes } from './search/routes.ts';
import { shelfRoutes } from './shelf/routes.ts';
import type { LibraryServices } from './services.ts';

export interface LibrarySurfaceOptions {
  services: LibraryServices;
  auth: TeamAuthOptions;
}

export async function librarySurface(app: FastifyInstance, options: LibrarySurfaceOptions): Promise<void> {
  await app.register(publicCatalogRoutes, options);
  await app.register(async (scoped) => {
    // Its team routes take envelopes addressed to this surface's origins (http/route-auth.ts checks them).
    declareTeamSurface(scoped, options.auth);
    // After auth, before validation: the scope each route declares (403 without it).
    enforceRouteScopes(scoped, 'library');
    await scoped.register(catalogWriteRoutes, options);
    await scoped.register(shelfRoutes, options);
    await scoped.register(proposalRoutes, options);
    await scoped.register(bindingRoutes, options);
    await scoped.register(librarySearchRoutes, options);
  });
}
