/**
 * DNS sits behind this interface: it is a system edge, so tests substitute a table and the node
 * uses node:dns. TXT records carry namespace authority; address lookups are how the outbound
 * client (server/net/) finds a node's IPs, so tests can point a host name anywhere, loopback
 * included, and watch the node refuse to connect.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface DnsResolver {
  /** TXT records at `name`, each as its list of strings; [] when the name has none. */
  resolveTxt(name: string): Promise<string[][]>;
  /** Every address of `hostname` (as getaddrinfo answers, in its order); rejects when it has none. */
  lookup(hostname: string): Promise<ResolvedAddress[]>;
}

const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

/**
 * How long a TXT lookup may take in all. Registration and verification wait on it inside a
 * request, and a resolver that never answers must not hold that request (nor a federation check)
 * for the minute c-ares would otherwise spend retrying: past this the lookup fails (ETIMEOUT),
 * which callers treat as "DNS proved nothing" (a 503), never as "no record".
 */
export const TXT_LOOKUP_TIMEOUT_MS = 5_000;

export interface SystemDnsOptions {
  /** Name servers to ask instead of the system's (`host:port`); for tests. */
  servers?: string[];
  timeoutMs?: number;
}

export function createSystemDnsResolver(options: SystemDnsOptions = {}): DnsResolver {
  const timeoutMs = options.timeoutMs ?? TXT_LOOKUP_TIMEOUT_MS;
  return {
    async resolveTxt(name) {
      // A resolver per lookup: cancel() ends every query of its resolver, not only this one.
      // Each try waits a third of the budget, so two tries fit inside it and the cancel is a backstop.
      const resolver = new dns.Resolver({ timeout: Math.max(1, Math.floor(timeoutMs / 3)), tries: 2 });
      if (options.servers) resolver.setServers(options.servers);
      const timer = setTimeout(() => resolver.cancel(), timeoutMs);
      try {
        return await resolver.resolveTxt(name);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (NO_RECORD.has(code)) return [];
        if (code === 'ECANCELLED') throw Object.assign(new Error(`queryTxt ETIMEOUT ${name}`), { code: 'ETIMEOUT', hostname: name });
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
    async lookup(hostname) {
      const found = await dns.lookup(hostname, { all: true, order: 'verbatim' });
      return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
    },
  };
}

export const systemDnsResolver: DnsResolver = createSystemDnsResolver();

/** What getaddrinfo's failure looks like, for a name the table does not know. */
function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}

/**
 * A resolver answering from fixed tables: for tests and for nodes run with DNS checks off.
 * `addresses` maps a host name to its IPs; an IP literal resolves to itself.
 */
export function staticDnsResolver(
  records: Record<string, string[][]> = {},
  addresses: Record<string, string[]> = {},
): DnsResolver & { records: Record<string, string[][]>; addresses: Record<string, string[]> } {
  return {
    records,
    addresses,
    async resolveTxt(name) {
      return records[name] ?? [];
    },
    async lookup(hostname) {
      const listed = isIP(hostname) !== 0 ? [hostname] : (addresses[hostname.toLowerCase()] ?? []);
      if (listed.length === 0) throw notFound(hostname);
      return listed.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
    },
  };
}
