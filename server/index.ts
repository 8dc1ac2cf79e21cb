/**
 * startNode: the whole node, the same for the desktop app (main/ calls it in-process) and the
 * headless `svc-node serve`. Custody opens first (it holds the database key), then the encrypted
 * database, then the listeners.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { OwnerAccess } from './auth/owner.ts';
import { OwnerSessions } from './auth/owner-sessions.ts';
import { ReplayCache } from './auth/replay-cache.ts';
import { SqliteSignatureStore } from './auth/replay-store.ts';
import { REPLAY_WINDOW_SECONDS } from './auth/timestamp.ts';
import { systemClock, type Clock } from './clock.ts';
import type { NodeContext, NodeUrls } from './context.ts';
import { Custody } from './custody/custody.ts';
import type { SafeStorageLike } from './custody/backends/safe-storage.ts';
import { chooseBackend, recordedBackend } from './custody/select.ts';
import type { BackendName } from './custody/types.ts';
import { guardedResolver } from './dns/guarded-resolver.ts';
import { DNS_LIMITS, type DnsLimits } from './dns/limits.ts';
import { createSystemDnsResolver, systemDnsResolver, type DnsResolver } from './dns/resolver.ts';
import { BACKUPS_TOPIC, EventBus, OWNER_SESSIONS_TOPIC, TUNNEL_TOPIC } from './events/bus.ts';
import type { DomainBudget } from './federation/domain-budget.ts';
import type { OutboxOptions } from './federation/outbox.ts';
import { buildLoopbackApp, buildPeerApp, type RegisteredRoute } from './http/app.ts';
import { loopbackHosts } from './http/host-guard.ts';
import type { ConnectionCaps } from './http/connection-limits.ts';
import type { PeerTimeouts } from './http/peer-timeouts.ts';
import type { RateLimit } from './http/rate-limit.ts';
import type { StreamTiming } from './http/sse.ts';
import type { RemoteClientOptions } from './net/remote-client.ts';
import { acquireNodeLock } from './store/node-lock.ts';
import { removeNodeFile, writeNodeFile, type ReadyInfo } from './node-file.ts';
import { nodeIdOf } from './node-id-store.ts';
import { SearchBackfill, type BackfillProgress } from './search/backfill.ts';
import { SearchIndexer } from './search/indexer.ts';
import { closeDatabase, openDatabase } from './store/database.ts';
import type { NodeWakeItem } from '../contract/core/events.ts';
import { createCoreServices } from './surfaces/core/services.ts';
import { DeviceService } from './devices/service.ts';
import { DeviceSync } from './devices/sync/service.ts';
import { DatabaseBackups } from './surfaces/node/database-backups/service.ts';
import type { DocsSurfaceOptions } from './surfaces/docs/index.ts';
import { createDocsServices } from './surfaces/docs/services.ts';
import type { LibrarySurfaceOptions } from './surfaces/library/index.ts';
import { SAMPLES_DIR, seedSampleBlueprints } from './surfaces/library/catalog/samples.ts';
import { createLibraryServices } from './surfaces/library/services.ts';
import type { TunnelTarget } from './tunnel/provider.ts';
import { TunnelService } from './tunnel/service.ts';
import type { SshTunnelBackoff } from './tunnel/ssh-tunnel.ts';
import { NODE_VERSION } from './version.ts';

export interface StartNodeOptions {
  dataDir: string;
  host?: string;
  port?: number;
  /** A second, peer-facing listener (for a tunnel); null or absent: none. */
  publicPort?: number | null;
  custody?: { backend?: BackendName; safeStorage?: SafeStorageLike; allowPlaintextFallback?: boolean };
  /** Browser origins allowed besides the listener's own, e.g. the desktop's app://svc-node. */
  allowedOrigins?: string[];
  /** The built renderer to serve at /ui/; null serves none. */
  uiDir?: string | null;
  log?: boolean;
  env?: Record<string, string | undefined>;
  dns?: DnsResolver;
  /**
   * The name server (`host:port`) every DNS question of the node goes to, TXT and address
   * lookups alike, instead of the machine's resolver (`svc-node serve --dns-server`). Ignored
   * when `dns` is given.
   */
  dnsServer?: string;
  /** The DNS cache times and node-wide query bounds (dns/limits.ts; tests change them). */
  dnsLimits?: Partial<DnsLimits>;
  clock?: Clock;
  /** Retry timing of the federation outbox (tests shorten it). */
  outbox?: Partial<OutboxOptions>;
  /** Timeouts and concurrency caps of the outbound client to other nodes (tests tighten them). */
  remote?: Partial<RemoteClientOptions>;
  /** What each sending domain may deliver here (tests lower it). */
  domainBudget?: DomainBudget;
  /** Reconnect timing of the tunnel (tests shorten it). */
  tunnelBackoff?: SshTunnelBackoff;
  /** Keepalive and `retry:` timing of the event streams (tests shorten it). */
  streams?: Partial<StreamTiming>;
  /**
   * Fail every answer outside its declared schema, an undeclared field included (test suites: a
   * route that drifts from its contract fails); without it undeclared fields are dropped.
   * Defaults to SVC_NODE_VALIDATE_RESPONSES=1 in the environment.
   */
  validateResponses?: boolean;
  /** Told of every route each listener registers (tests read the route table from here). */
  onRoute?: (listener: 'loopback' | 'peer', route: RegisteredRoute) => void;
  /** The peer listener's rate limit (tests tighten it). */
  peerRateLimit?: RateLimit;
  /** The peer listener's connection caps (tests lower them; by default they follow the descriptor limit). */
  peerConnections?: Partial<ConnectionCaps>;
  /** The peer listener's timeouts (tests shorten them). */
  peerTimeouts?: Partial<PeerTimeouts>;
  warn?: (message: string) => void;
  /** The longest a linked device's long poll waits for a change (tests shorten it; default 20 s). */
  deviceSyncWaitMs?: number;
  /** How often the backup schedule is checked (tests shorten it; default a minute). */
  backupScheduleCheckMs?: number;
  /** The sample blueprints published into the catalog at start (default: the shipped ones; null: none). */
  sampleBlueprintsDir?: string | null;
}

export interface RunningNode {
  info: ReadyInfo;
  ownerToken: string;
  nodeId: string;
  /** A fresh one-time UI link. */
  uiLink(): string;
  /** New mail and chat for every identity on the node, as they are written (desktop notifications). */
  onWake(listener: (item: NodeWakeItem) => void): () => void;
  close(): Promise<void>;
}

export const DEFAULT_UI_DIR = fileURLToPath(new URL('../out/renderer/', import.meta.url));

/** A surface's audiences: its loopback origin (also spelled `localhost`) and the public one. */
function surfaceOrigins(loopbackUrl: string, publicUrl: string | null): string[] {
  const origins = [loopbackUrl, loopbackUrl.replace('//127.0.0.1:', '//localhost:')];
  return publicUrl === null ? origins : [...origins, publicUrl];
}

const origin = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

export async function startNode(options: StartNodeOptions): Promise<RunningNode> {
  const { dataDir, host = '127.0.0.1', env = process.env } = options;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const releaseLock = acquireNodeLock(dataDir);
  const cleanups: (() => Promise<void> | void)[] = [releaseLock];
  const cleanup = async (): Promise<void> => {
    for (const fn of cleanups.reverse()) await fn();
  };
  try {
    const backend = options.custody?.backend ?? chooseBackend({ env, recorded: recordedBackend(dataDir) });
    const custody = await Custody.open({
      dataDir,
      backend,
      env,
      ...(options.custody?.safeStorage ? { safeStorage: options.custody.safeStorage } : {}),
      ...(options.custody?.allowPlaintextFallback ? { allowPlaintextFallback: true } : {}),
      ...(options.warn ? { warn: options.warn } : {}),
    });
    cleanups.push(() => custody.close());
    const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
    cleanups.push(() => closeDatabase(db));
    custody.attach(db);

    const urls: NodeUrls = { core_url: '', library_url: '', docs_url: '', ui_url: '', public_url: null };
    // The tunnel service is made after the services; until then it has no configured URL.
    let tunnelPublicUrl = (): string | null => null;
    const ctx: NodeContext = {
      db,
      custody,
      clock: options.clock ?? systemClock,
      // Whoever answers, the node's DNS is cached, joined and bounded node-wide in one place.
      dns: guardedResolver(
        options.dns ?? (options.dnsServer === undefined ? systemDnsResolver : createSystemDnsResolver({ servers: [options.dnsServer] })),
        { ...DNS_LIMITS, ...options.dnsLimits },
        options.clock ?? systemClock,
      ),
      // Signed writes are remembered in the database too, so a restart does not reopen the window.
      replay: new ReplayCache(
        REPLAY_WINDOW_SECONDS * 1000,
        new SqliteSignatureStore(db, REPLAY_WINDOW_SECONDS * 1000, (options.clock ?? systemClock).now().getTime()),
      ),
      bus: new EventBus(),
      urls,
      ownOrigins: () => {
        const listed = [urls.core_url, urls.public_url, tunnelPublicUrl()];
        return listed.filter((url): url is string => url !== null && url !== '');
      },
    };
    const id = nodeIdOf(db);
    // The owner's devices: this one lists itself on its first start (made before devices, or from a kit).
    const devices = new DeviceService(ctx, { dataDir, nodeId: id });
    devices.self();
    let deviceSyncLog: FastifyInstance['log'] | null = null;
    const deviceSync = new DeviceSync(ctx, devices, id, {
      ...(options.deviceSyncWaitMs === undefined ? {} : { waitMs: options.deviceSyncWaitMs }),
      onError: (error, device) =>
        deviceSyncLog?.warn({ err: error, device_id: device.device_id }, 'device sync: a request to another device failed; it is tried again shortly'),
    });
    const validateResponses = options.validateResponses ?? env.SVC_NODE_VALIDATE_RESPONSES === '1';
    const owner = new OwnerAccess({ clock: ctx.clock, sessions: new OwnerSessions(db, ctx.clock, () => ctx.bus.publish(OWNER_SESSIONS_TOPIC)) });
    const services = createCoreServices(ctx, owner, {
      outbox: options.outbox,
      remote: options.remote,
      ...(options.domainBudget ? { domainBudget: options.domainBudget } : {}),
    });
    cleanups.push(() => services.remote.close());
    // A signed envelope names the origin it was meant for; only this surface's own origins count.
    const library: LibrarySurfaceOptions = {
      services: createLibraryServices(ctx, services),
      auth: { teams: services.teams, audiences: () => surfaceOrigins(urls.library_url, urls.public_url), clock: ctx.clock, replay: ctx.replay },
    };
    // A fresh node's catalog offers the shipped samples; restarts leave it as it is.
    if (options.sampleBlueprintsDir !== null) {
      seedSampleBlueprints(library.services.catalog, library.services.registrations, options.sampleBlueprintsDir ?? SAMPLES_DIR);
    }
    const docs: DocsSurfaceOptions = {
      services: createDocsServices(ctx, services, { assetsDir: join(dataDir, 'assets') }),
      auth: { teams: services.teams, audiences: () => surfaceOrigins(urls.docs_url, urls.public_url), clock: ctx.clock, replay: ctx.replay },
    };
    let port = 0;
    const hosts = new Set<string>();
    const origins = new Set<string>(options.allowedOrigins ?? []);
    const uiLink = (): string => `${urls.core_url}/ui/#code=${owner.issueCode()}`;

    // The peer listener: at start with --public-port, else when the tunnel first needs it.
    let peer: { app: FastifyInstance; target: TunnelTarget } | null = null;
    let listenerPublicUrl: string | null = null;
    const peerListener = async (): Promise<TunnelTarget> => {
      if (peer !== null) return peer.target;
      const { app, connections } = await buildPeerApp({
        services,
        devices,
        deviceSync,
        streams: options.streams,
        library,
        docs,
        log: options.log ?? false,
        validateResponses,
        ...(options.onRoute ? { onRoute: (route: RegisteredRoute) => options.onRoute?.('peer', route) } : {}),
        ...(options.peerRateLimit ? { rateLimit: options.peerRateLimit } : {}),
        ...(options.peerConnections ? { connectionCaps: options.peerConnections } : {}),
        ...(options.peerTimeouts ? { timeouts: options.peerTimeouts } : {}),
      });
      cleanups.push(() => app.close());
      await app.listen({ host, port: options.publicPort ?? 0 });
      const address = app.server.address();
      peer = { app, target: { host, port: typeof address === 'object' && address ? address.port : 0, forward: connections.forward } };
      return peer.target;
    };
    const tunnel = new TunnelService(
      ctx,
      {
        peerListener,
        setPublicUrl: (url) => {
          urls.public_url = url ?? listenerPublicUrl;
        },
        changed: () => ctx.bus.publish(TUNNEL_TOPIC),
      },
      options.tunnelBackoff ? { backoff: options.tunnelBackoff } : {},
    );
    tunnelPublicUrl = () => tunnel.configuredPublicUrl();
    let log: FastifyInstance['log'] | null = null;
    const databaseBackups = new DatabaseBackups(ctx, id, {
      assetsDir: join(dataDir, 'assets'),
      ...(options.backupScheduleCheckMs === undefined ? {} : { checkEveryMs: options.backupScheduleCheckMs }),
      onError: (error) => log?.warn({ err: error }, 'backup: the scheduled backup failed; it is tried again after its interval'),
      onProgress: () => ctx.bus.publish(BACKUPS_TOPIC),
    });

    const loopback: FastifyInstance = await buildLoopbackApp({
      services,
      devices,
      deviceSync,
      streams: options.streams,
      validateResponses,
      ...(options.onRoute ? { onRoute: (route: RegisteredRoute) => options.onRoute?.('loopback', route) } : {}),
      library,
      docs,
      hostPolicy: { hosts: () => hosts, origins: () => origins },
      owner: {
        tunnel,
        uiLink,
        databaseBackups,
        nodeInfo: () => ({ node_id: id, version: NODE_VERSION, ...urls, data_dir: dataDir, custody_backend: custody.backend }),
      },
      uiDir: options.uiDir === undefined ? DEFAULT_UI_DIR : options.uiDir,
      log: options.log ?? false,
    });
    cleanups.push(() => loopback.close());
    await loopback.listen({ host, port: options.port ?? 0 });
    const address = loopback.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
    for (const h of loopbackHosts(host, port)) {
      hosts.add(h);
      origins.add(origin(h.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''), port));
    }
    urls.core_url = urls.library_url = urls.docs_url = origin(host, port);

    if (options.publicPort !== undefined && options.publicPort !== null) {
      const target = await peerListener();
      listenerPublicUrl = urls.public_url = origin(target.host, target.port);
    }
    urls.ui_url = uiLink();
    // Mail queued for other nodes (also what a previous run left) goes out once the node listens.
    services.outbox.start((error) => loopback.log.warn({ err: error }, 'federation delivery: a batch failed; its messages are tried again shortly'));
    cleanups.push(() => services.outbox.stop());
    // What existed before the search index did is indexed in the background, resuming where a
    // previous run stopped; progress goes to the log (and every search answer says how far it is).
    const backfill = new SearchBackfill(ctx.db, () => services.search.documentHistory, throttledProgress(loopback));
    backfill.start();
    cleanups.push(() => backfill.stop());
    // Mail and chat are moved into the search indexes in batches (what a crash left noted, first);
    // stopping moves the rest, so a clean stop leaves nothing waiting.
    const indexer = new SearchIndexer(ctx.db, (error) => loopback.log.warn({ err: error }, 'search index: a batch failed; it is tried again shortly'));
    indexer.start();
    cleanups.push(() => indexer.stop());
    // Identities get their first encryption key (those older than keys) and assertions near
    // expiry are renewed, now and daily, on the node's clock.
    services.encryptionKeys.startSweeping((error, agentId) =>
      loopback.log.warn({ err: error, agent_id: agentId }, 'encryption keys: the sweep could not serve an identity; it is tried again tomorrow'),
    );
    cleanups.push(() => services.encryptionKeys.stopSweeping());
    // Unfinished video uploads (a crash, an expired URL) are cleaned up now and periodically.
    docs.services.uploads.startSweeping();
    cleanups.push(() => docs.services.uploads.stopSweeping());
    // Scheduled backups run while the node does; stopping waits for one being written.
    log = loopback.log;
    databaseBackups.start();
    cleanups.push(() => databaseBackups.stop());
    // Snapshots kept for devices that never finished joining, and codes that can no longer work, go.
    await devices.sweep();
    // Changes are captured while another device is live; the devices whose URL this one knows are asked continually.
    deviceSyncLog = loopback.log;
    deviceSync.start();
    cleanups.push(() => deviceSync.stop());
    // A tunnel that was running when the node stopped comes back.
    cleanups.push(() => tunnel.close());
    await tunnel.resume();

    const info: ReadyInfo = { ...urls, data_dir: dataDir, pid: process.pid };
    writeNodeFile(dataDir, { ...info, owner_token: owner.token });
    cleanups.push(() => removeNodeFile(dataDir));
    let closed: Promise<void> | null = null;
    return {
      info,
      ownerToken: owner.token,
      nodeId: id,
      uiLink,
      onWake: (listener) => services.wakeFeed.subscribe(listener),
      close: () => (closed ??= cleanup()),
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Backfill progress in the log: at most every few seconds per kind, and when a kind is done. */
function throttledProgress(app: FastifyInstance): (progress: BackfillProgress) => void {
  const last = new Map<string, number>();
  return ({ kind, done, total }) => {
    const now = Date.now();
    if (done < total && now - (last.get(kind) ?? 0) < 3000) return;
    last.set(kind, now);
    app.log.info({ search_backfill: kind, done, total }, `search index: ${kind} ${done}/${total}`);
  };
}
