/**
 * The core surface in-process, for tests that need its services as well as its HTTP API (a
 * surface's `appEvents.emit`, which no endpoint reaches): a real encrypted database in a temp
 * dir, the core routes on a real loopback listener, and a clock the test can move forward.
 */
import type { FastifyPluginAsync } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OwnerAccess } from '../../server/auth/owner.ts';
import { OwnerSessions } from '../../server/auth/owner-sessions.ts';
import { ReplayCache } from '../../server/auth/replay-cache.ts';
import type { NodeContext } from '../../server/context.ts';
import { Custody } from '../../server/custody/custody.ts';
import { staticDnsResolver } from '../../server/dns/resolver.ts';
import { EventBus, OWNER_SESSIONS_TOPIC } from '../../server/events/bus.ts';
import { baseApp } from '../../server/http/app.ts';
import { closeDatabase, openDatabase } from '../../server/store/database.ts';
import { coreSurface } from '../../server/surfaces/core/index.ts';
import { createCoreServices, type CoreServices } from '../../server/surfaces/core/services.ts';

export interface CoreNode {
  ctx: NodeContext;
  services: CoreServices;
  /** The core surface's origin. */
  url: string;
  /** Moves the node's clock (and only its clock) forward. */
  advance(ms: number): void;
  close(): Promise<void>;
}

export interface CoreNodeOptions {
  /** More routes, registered beside the core surface (outside its context), to test the hooks every route passes. */
  routes?: FastifyPluginAsync<{ services: CoreServices }>;
  /** Fail answers outside their declared schemas, as every suite does (the default); false runs them as production does. */
  validateResponses?: boolean;
}

export async function startCoreNode(options: CoreNodeOptions = {}): Promise<CoreNode> {
  const { validateResponses = true } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-core-'));
  const custody = await Custody.open({ dataDir, backend: 'key-file', warn() {} });
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
  let offset = 0;
  const ctx: NodeContext = {
    db,
    custody,
    clock: { now: () => new Date(Date.now() + offset) },
    dns: staticDnsResolver(),
    replay: new ReplayCache(300_000),
    bus: new EventBus(),
    urls: { core_url: '', library_url: '', docs_url: '', ui_url: '', public_url: null },
    // The listener's origin once it listens: signed envelopes name it as their audience.
    ownOrigins: () => (ctx.urls.core_url === '' ? [] : [ctx.urls.core_url]),
  };
  const services = createCoreServices(
    ctx,
    new OwnerAccess({ clock: ctx.clock, sessions: new OwnerSessions(db, ctx.clock, () => ctx.bus.publish(OWNER_SESSIONS_TOPIC)) }),
  );
  const app = baseApp({ services, log: false, validateResponses });
  await app.register(coreSurface, { services, ownerListener: false });
  if (options.routes) await app.register(options.routes, { services });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  ctx.urls.core_url = url;
  return {
    ctx,
    services,
    url,
    advance(ms) {
      offset += ms;
    },
    async close() {
      await app.close();
      closeDatabase(db);
      custody.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
