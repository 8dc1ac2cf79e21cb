/**
 * The library surface (spec §4.6) as one Fastify plugin: the three public catalog reads, and
 * everything else behind team-certificate auth (spec §5 mode 3, server/auth/team-envelope.ts).
 */
import type { FastifyInstance } from 'fastify';
import { teamAuth, type TeamAuthOptions } from '../../http/team-auth.ts';
import { bindingRoutes } from './routes/bindings.ts';
import { catalogWriteRoutes, publicCatalogRoutes } from './routes/catalog.ts';
import { proposalRoutes } from './routes/proposals.ts';
import { shelfRoutes } from './routes/shelf.ts';
import type { LibraryServices } from './services.ts';

export interface LibrarySurfaceOptions {
  services: LibraryServices;
  auth: TeamAuthOptions;
}

export async function librarySurface(app: FastifyInstance, options: LibrarySurfaceOptions): Promise<void> {
  await app.register(publicCatalogRoutes, options);
  await app.register(async (scoped) => {
    scoped.addHook('preHandler', teamAuth(options.auth));
    await scoped.register(catalogWriteRoutes, options);
    await scoped.register(shelfRoutes, options);
    await scoped.register(proposalRoutes, options);
    await scoped.register(bindingRoutes, options);
  });
}
