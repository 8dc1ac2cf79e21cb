/**
 * The owner API (`/v1/node/...`) as one Fastify plugin: what the node's owner does through the UI
 * and the CLI. Only the loopback listener mounts it. Every route but the code exchange declares
 * `auth: 'owner'` (the owner token or a browser session, checked by the auth hook before
 * validation); schemas are the contract's (contract/node/). Its aggregates are registered in the
 * order the API description lists them.
 */
import type { FastifyInstance } from 'fastify';
import type { NodeInfo } from '../../../contract/node/owner.ts';
import type { TunnelService } from '../../tunnel/service.ts';
import type { CoreServices } from '../core/services.ts';
import { backupRoutes } from './backups/routes.ts';
import { databaseBackupRoutes } from './database-backups/routes.ts';
import type { DatabaseBackups } from './database-backups/service.ts';
import { deviceOwnerRoutes } from './devices/routes.ts';
import type { DeviceService } from '../../devices/service.ts';
import { docsOwnerRoutes } from './docs/routes.ts';
import { feedRoutes } from './events/routes.ts';
import { identityRoutes } from './identities/routes.ts';
import { infoRoutes } from './info/routes.ts';
import { namespaceRoutes } from './namespaces/routes.ts';
import { peerRoutes } from './peers/routes.ts';
import { projectRoutes } from './projects/routes.ts';
import { recoveryKitRoutes } from './recovery-kit/routes.ts';
import { RecoveryKits } from '../../recovery/kit/service.ts';
import { ownerSearchRoutes } from './search/routes.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { setupRoutes } from './setup/routes.ts';
import { teamRoutes } from './teams/routes.ts';
import { tunnelRoutes } from './tunnel/routes.ts';

export interface OwnerApiOptions {
  services: CoreServices;
  tunnel: TunnelService;
  nodeInfo: () => NodeInfo;
  uiLink: () => string;
  /** Backups of the database; startNode builds it, since its schedule runs with the node. */
  databaseBackups: DatabaseBackups;
  /** The owner's devices; absent in apps built for one test, which then have no device routes. */
  devices?: DeviceService | undefined;
}

export async function ownerApi(app: FastifyInstance, { services, tunnel, nodeInfo, uiLink, databaseBackups, devices }: OwnerApiOptions): Promise<void> {
  await app.register(sessionRoutes, { services });
  await app.register(infoRoutes, { nodeInfo, uiLink });
  await app.register(projectRoutes, { services });
  await app.register(identityRoutes, { services });
  await app.register(feedRoutes, { services, nodeInfo });
  await app.register(backupRoutes, { services });
  await app.register(databaseBackupRoutes, { backups: databaseBackups });
  await app.register(recoveryKitRoutes, { kits: new RecoveryKits(services.ctx) });
  if (devices) await app.register(deviceOwnerRoutes, { devices });
  await app.register(teamRoutes, { services });
  await app.register(docsOwnerRoutes, { services });
  await app.register(peerRoutes, { services });
  await app.register(ownerSearchRoutes, { services });
  await app.register(tunnelRoutes, { tunnel });
  await app.register(setupRoutes, { services, nodeId: nodeInfo().node_id });
  await app.register(namespaceRoutes, { services });
}
