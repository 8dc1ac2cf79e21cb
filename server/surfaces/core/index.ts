/**
 * The core surface (spec §4.1–§4.3) as one Fastify plugin, with federation inbound (mail from
 * other nodes arrives through the same listeners).
 */
import type { FastifyInstance } from 'fastify';
import { federationRoutes } from '../../federation/routes.ts';
import { coreTeamAuth } from '../../http/route-auth.ts';
import { declareTeamSurface } from '../../http/team-auth.ts';
import { chatRoutes } from './chat/routes.ts';
import { contactRoutes } from './contacts/routes.ts';
import { controlRoutes } from './control/routes.ts';
import { didRoutes } from './did/routes.ts';
import { eventRoutes } from './events/routes/stream.ts';
import { healthRoutes } from './health/routes.ts';
import { subscriptionRoutes } from './events/routes/subscriptions.ts';
import { teamRoutes } from './team/routes.ts';
import { identityRoutes } from './identities/routes.ts';
import { mailRoutes } from './mail/routes.ts';
import { namespaceRoutes } from './namespaces/routes.ts';
import { searchRoutes } from './search/routes.ts';
import type { CoreServices } from './services.ts';

export interface CoreSurfaceOptions {
  services: CoreServices;
  /**
   * Whether the node owner's token counts as a credential (archive and replace). True only on
   * the loopback listener: owner power is never reachable from a peer listener (DESIGN §7).
   */
  ownerListener: boolean;
}

export async function coreSurface(app: FastifyInstance, options: CoreSurfaceOptions): Promise<void> {
  // Its team route (`POST /v1/connect`) takes upstream's compact v1 as its identity routes do.
  declareTeamSurface(app, coreTeamAuth(options.services));
  await app.register(namespaceRoutes, options);
  await app.register(didRoutes, options);
  await app.register(identityRoutes, options);
  await app.register(chatRoutes, options);
  await app.register(mailRoutes, options);
  await app.register(contactRoutes, options);
  await app.register(controlRoutes, options);
  await app.register(teamRoutes, options);
  await app.register(eventRoutes, options);
  await app.register(subscriptionRoutes, options);
  await app.register(federationRoutes, options);
  await app.register(healthRoutes, options);
  await app.register(searchRoutes, options);
}
