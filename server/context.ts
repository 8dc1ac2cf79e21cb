/**
 * What every service of a running node shares. Built once by startNode (server/index.ts).
 */
import type Database from 'better-sqlite3-multiple-ciphers';
import type { ReplayCache } from './auth/replay-cache.ts';
import type { Clock } from './clock.ts';
import type { Custody } from './custody/custody.ts';
import type { DnsResolver } from './dns/resolver.ts';
import type { EventBus } from './events/bus.ts';

export type Db = Database.Database;

export interface NodeUrls {
  core_url: string;
  library_url: string;
  docs_url: string;
  ui_url: string;
  public_url: string | null;
}

export interface NodeContext {
  db: Db;
  custody: Custody;
  clock: Clock;
  dns: DnsResolver;
  replay: ReplayCache;
  /** Publishes after a write commits; open streams listen. */
  bus: EventBus;
  /** Filled in once the listeners are up; services read it lazily (for `server_url`). */
  urls: NodeUrls;
  /**
   * Every origin at which peers may reach this node: the listeners' URLs and the tunnel's public
   * URL, configured even while the tunnel is down. A `_svcid` record whose `node=` is one of them
   * says a namespace lives here.
   */
  ownOrigins(): string[];
}
