/**
 * Fastify application factories for the node's two kinds of listener:
 * - loopback: the three surfaces, MCP, the owner API and the built UI, behind the Host/Origin guard;
 * - peer: only the spec's own endpoints (authenticated or intentionally public), for a tunnel and
 *   for other nodes, rate-limited and connection-capped per client, with short timeouts.
 * The loopback listener is capped too, generously, so a local flood cannot take the descriptors
 * the database and outbound fetches need (connection-limits.ts has the budget).
 */
import { deviceRoutes } from '../devices/routes.ts';
import type { DeviceService } from '../devices/service.ts';
import type { DeviceSync } from '../devices/sync/service.ts';
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import type { Server } from 'node:http';
import { coreSurface } from '../surfaces/core/index.ts';
import { docsSurface, type DocsSurfaceOptions } from '../surfaces/docs/index.ts';
import { librarySurface, type LibrarySurfaceOptions } from '../surfaces/library/index.ts';
import type { CoreServices } from '../surfaces/core/services.ts';
import { mcpRoutes } from '../surfaces/core/mcp/routes.ts';
import { ownerApi, type OwnerApiOptions } from '../surfaces/node/index.ts';
import { limitConnections, processConnectionBudget, type ConnectionCaps, type PeerConnections } from './connection-limits.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandlers } from './error-handler.ts';
import { installHostGuard, type HostPolicy } from './host-guard.ts';
import { installJsonBody } from './json-body.ts';
import { markListener } from './listener.ts';
import { requestLogFields } from './log-redact.ts';
import { BODY_LIMIT_BYTES } from './limits.ts';
import { installIdleRule, PEER_TIMEOUTS, peerServerOptions, type PeerTimeouts } from './peer-timeouts.ts';
import { installRateLimit, PEER_RATE_LIMIT, type RateLimit } from './rate-limit.ts';
import { installSse, type StreamTiming } from './sse.ts';
import { installApiDescription } from './api-description.ts';
import { installRouteAuth, type AuthMode } from './route-auth.ts';
import type { TeamScope } from '../../contract/node/teams.ts';
import { installRouteSchemas } from './route-schemas.ts';
import { serveUi } from './static-ui.ts';

/** A route as registered, with what its config declares about its callers. */
export interface RegisteredRoute {
  method: string;
  url: string;
  auth: AuthMode | undefined;
  scope: TeamScope | undefined;
  /** A `public` route that answers an identity more when it brings its credentials (route-auth.ts). */
  identityIfGiven: boolean;
}

/** What every listener's app is built with. */
export interface BaseOptions {
  services: CoreServices;
  log: boolean;
  /** Fail every answer and SSE frame outside its declared schema, undeclared fields included (the test suites); production drops undeclared fields. */
  validateResponses?: boolean | undefined;
  /** Told of every route as it is registered (tests read the route table from here). */
  onRoute?: ((route: RegisteredRoute) => void) | undefined;
  /** The event streams' keepalive and reconnect timing (tests shorten it). */
  streams?: Partial<StreamTiming> | undefined;
  /** The owner's other devices: the wire they join and sync over (absent in apps that mount one surface for a test). */
  devices?: DeviceService | undefined;
  deviceSync?: DeviceSync | undefined;
}

/**
 * A Fastify app with everything every listener shares (errors, JSON bodies, SSE, declared schemas
 * and auth); the factories below add what each listener serves. Tests that mount one surface on
 * its own start from this too, so they run it as the node does.
 */
export function baseApp({ services, log, validateResponses, onRoute, streams }: BaseOptions, serverOptions: FastifyHttpOptions<Server> = {}): FastifyInstance {
  const app = Fastify({
    ...serverOptions,
    // URLs that carry a capability are redacted (log-redact.ts); credentials never reach the log.
    logger: log ? { level: 'info', redact: ['req.headers.authorization'], serializers: { req: requestLogFields } } : false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Paths are matched exactly as sent; signed envelopes cover the raw request target.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 512 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // A stopping node drops idle keep-alive sockets too, so close() never waits on a client.
    forceCloseConnections: true,
  });
  installErrorHandlers(app);
  installJsonBody(app);
  installSse(app, { ...streams, strictFrames: validateResponses });
  installRouteSchemas(app, { validateResponses });
  installRouteAuth(app, services);
  if (onRoute) {
    app.addHook('onRoute', (route) => {
      const { auth, scope, identityIfGiven } = route.config ?? {};
      for (const method of [route.method].flat()) onRoute({ method, url: route.url, auth, scope, identityIfGiven: identityIfGiven === true });
    });
  }
  return app;
}

export interface LoopbackAppOptions extends BaseOptions {
  library: LibrarySurfaceOptions;
  docs: DocsSurfaceOptions;
  hostPolicy: HostPolicy;
  owner: Omit<OwnerApiOptions, 'services'>;
  uiDir: string | null;
}

export async function buildLoopbackApp(options: LoopbackAppOptions): Promise<FastifyInstance> {
  const app = baseApp(options);
  markListener(app, 'loopback');
  await installApiDescription(app, { reference: true });
  const { loopback } = processConnectionBudget();
  if (loopback !== null) app.server.maxConnections = loopback;
  installHostGuard(app, options.hostPolicy);
  await app.register(coreSurface, { services: options.services, ownerListener: true });
  await app.register(librarySurface, options.library);
  await app.register(docsSurface, options.docs);
  await app.register(mcpRoutes, { services: options.services });
  if (options.devices && options.deviceSync) {
    await app.register(deviceRoutes, { devices: options.devices, sync: options.deviceSync, now: () => options.services.ctx.clock.now() });
  }
  await app.register(ownerApi, { services: options.services, ...options.owner, devices: options.devices });
  await app.register(serveUi, { uiDir: options.uiDir });
  return app;
}

export interface PeerApp {
  app: FastifyInstance;
  /** Where a tunnel hands its connections, attributed to their originators. */
  connections: PeerConnections;
}

export async function buildPeerApp(
  options: BaseOptions & {
    library: LibrarySurfaceOptions;
    docs: DocsSurfaceOptions;
    rateLimit?: RateLimit;
    /** Tests lower them; the defaults follow the process's descriptor limit. */
    connectionCaps?: Partial<ConnectionCaps>;
    timeouts?: Partial<PeerTimeouts>;
  },
): Promise<PeerApp> {
  const app = baseApp(options, peerServerOptions({ ...PEER_TIMEOUTS, ...options.timeouts }));
  markListener(app, 'peer');
  await installApiDescription(app, { reference: false });
  const connections = limitConnections(app.server, { ...processConnectionBudget().peer, ...options.connectionCaps });
  installIdleRule(app.server);
  installRateLimit(app, options.rateLimit ?? PEER_RATE_LIMIT, options.services.ctx.clock);
  await app.register(coreSurface, { services: options.services, ownerListener: false });
  await app.register(librarySurface, options.library);
  await app.register(docsSurface, options.docs);
  if (options.devices && options.deviceSync) {
    await app.register(deviceRoutes, { devices: options.devices, sync: options.deviceSync, now: () => options.services.ctx.clock.now() });
  }
  return { app, connections };
}
