/**
 * A node's core services in-process for unit tests beside federation's modules: a real encrypted
 * database and custody in a temp dir, no listener, DNS a table (a system edge), and a clock the
 * test moves forward (the node's clock only: timers and sockets keep real time).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OwnerAccess } from '../../server/auth/owner.ts';
import { OwnerSessions } from '../../server/auth/owner-sessions.ts';
import { ReplayCache } from '../../server/auth/replay-cache.ts';
import type { NodeContext } from '../../server/context.ts';
import { Custody } from '../../server/custody/custody.ts';
import { staticDnsResolver, type DnsResolver } from '../../server/dns/resolver.ts';
import { EventBus, OWNER_SESSIONS_TOPIC } from '../../server/events/bus.ts';
import { closeDatabase, openDatabase } from '../../server/store/database.ts';
import { createCoreServices, type CoreServiceOptions, type CoreServices } from '../../server/surfaces/core/services.ts';

export interface UnitNode {
  ctx: NodeContext;
  services: CoreServices;
  /** Moves the node's clock forward. */
  advance(ms: number): void;
  close(): void;
}

export async function startUnitNode(options: CoreServiceOptions = {}, dns: DnsResolver = staticDnsResolver()): Promise<UnitNode> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-unit-'));
  const custody = await Custody.open({ dataDir, backend: 'key-file', warn() {} });
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
  let offset = 0;
  const ctx: NodeContext = {
    db,
    custody,
    clock: { now: () => new Date(Date.now() + offset) },
    dns,
    replay: new ReplayCache(300_000),
    bus: new EventBus(),
    urls: { core_url: '', library_url: '', docs_url: '', ui_url: '', public_url: null },
    ownOrigins: () => [],
  };
  const services = createCoreServices(
    ctx,
    new OwnerAccess({ clock: ctx.clock, sessions: new OwnerSessions(db, ctx.clock, () => ctx.bus.publish(OWNER_SESSIONS_TOPIC)) }),
    options,
  );
  return {
    ctx,
    services,
    advance(ms) {
      offset += ms;
    },
    close() {
      closeDatabase(db);
      custody.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * DNS as a table the test fills (`table.records`), where the names in `failing` fail with `code`
 * (as a resolver's ETIMEOUT or ESERVFAIL); `reset()` empties both between tests.
 */
export function failableDns(code: string): { dns: DnsResolver; table: ReturnType<typeof staticDnsResolver>; failing: Set<string>; reset: () => void } {
  const table = staticDnsResolver();
  const failing = new Set<string>();
  const dns: DnsResolver = {
    resolveTxt: async (name, options) => {
      if (failing.has(name)) throw Object.assign(new Error(`queryTxt ${code} ${name}`), { code });
      return table.resolveTxt(name, options);
    },
    lookup: (hostname, options) => table.lookup(hostname, options),
  };
  const reset = () => {
    failing.clear();
    for (const name of Object.keys(table.records)) delete table.records[name];
  };
  return { dns, table, failing, reset };
}
