/**
 * The core surface (spec §4.1–§4.3) as one Fastify plugin.
 */
import type { FastifyInstance } from 'fastify';
import { didRoutes } from './did/routes.ts';
import { identityRoutes } from './identities/routes.ts';
import { namespaceRoutes } from './namespaces/routes.ts';
import type { CoreServices } from './services.ts';

export async function coreSurface(app: FastifyInstance, options: { services: CoreServices }): Promise<void> {
  await app.register(namespaceRoutes, options);
  await app.register(didRoutes, options);
  await app.register(identityRoutes, options);
}
