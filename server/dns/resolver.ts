/**
 * DNS sits behind this interface: it is a system edge, so tests substitute a table and the node
 * uses node:dns, asking the machine's resolver or, when given one (`--dns-server`), that name
 * server for everything. TXT records carry namespace authority; address lookups are how the
 * outbound client (server/net/) finds a node's IPs, so tests can point a host name anywhere,
 * loopback included, and watch the node refuse to connect.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** What a caller learns of one lookup besides its answer. */
export interface LookupOptions {
  /**
   * Called just before a query goes to a name server on this caller's behalf: not for an answer
   * from the cache, nor for a lookup that joins one already asked. Throwing refuses the query
   * (the lookup rejects with that error): how a request's DNS is budgeted (budget.ts).
   */
  onQuery?: (name: string) => void;
  /**
   * Ask again rather than take a kept answer (an explicit re-check after a DNS change); the new
   * answer is kept for the next caller. A lookup already in flight is still joined.
   */
  fresh?: boolean;
}

export interface DnsResolver {
  /** TXT records at `name`, each as its list of strings; [] when the name has none. */
  resolveTxt(name: string, options?: LookupOptions): Promise<string[][]>;
  /** Every address of `hostname` (as getaddrinfo answers, in its order); rejects when it has none. */
  lookup(hostname: string, options?: LookupOptions): Promise<ResolvedAddress[]>;
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
  /**
   * Name servers to ask instead of the system's (`host:port`, `svc-node serve --dns-server`).
   * With them, address lookups ask these servers too (A and AAAA), since getaddrinfo would
   * ignore them and ask the machine's resolver.
   */
  servers?: string[];
  timeoutMs?: number;
}

/** RFC 6761: `localhost` is loopback whatever a name server says, and never sent to one. */
const LOCALHOST: ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

export function createSystemDnsResolver(options: SystemDnsOptions = {}): DnsResolver {
  const timeoutMs = options.timeoutMs ?? TXT_LOOKUP_TIMEOUT_MS;
  // A server that is not an address (with an optional port) is refused now, not at the first lookup.
  if (options.servers) new dns.Resolver().setServers(options.servers);
  /**
   * Runs `query` on a resolver of its own (cancel() ends every query of its resolver, not only
   * this one). Each try waits a third of the budget, so two tries fit inside it and the cancel
   * is a backstop.
   */
  const withResolver = async <T>(name: string, query: (resolver: dns.Resolver) => Promise<T>): Promise<T> => {
    const resolver = new dns.Resolver({ timeout: Math.max(1, Math.floor(timeoutMs / 3)), tries: 2 });
    if (options.servers) resolver.setServers(options.servers);
    const timer = setTimeout(() => resolver.cancel(), timeoutMs);
    try {
      return await query(resolver);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (code === 'ECANCELLED') throw Object.assign(new Error(`query ETIMEOUT ${name}`), { code: 'ETIMEOUT', hostname: name });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
  /** The addresses of one family; [] when the name has none of it. */
  const addressesOf = async (hostname: string, family: 4 | 6): Promise<ResolvedAddress[]> => {
    try {
      const found = await withResolver(hostname, (resolver) => (family === 4 ? resolver.resolve4(hostname) : resolver.resolve6(hostname)));
      return found.map((address) => ({ address, family }));
    } catch (error) {
      if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? '')) return [];
      throw error;
    }
  };
  return {
    async resolveTxt(name, lookupOptions) {
      lookupOptions?.onQuery?.(name);
      try {
        return await withResolver(name, (resolver) => resolver.resolveTxt(name));
      } catch (error) {
        if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? '')) return [];
        throw error;
      }
    },
    async lookup(hostname, lookupOptions) {
      const name = hostname.toLowerCase().replace(/\.$/, '');
      if (options.servers !== undefined) {
        const literal = isIP(hostname);
        if (literal !== 0) return [{ address: hostname, family: literal === 6 ? 6 : 4 }];
        if (name === 'localhost' || name.endsWith('.localhost')) return LOCALHOST;
      }
      if (isIP(hostname) === 0) lookupOptions?.onQuery?.(hostname);
      if (options.servers === undefined) {
        const found = await dns.lookup(hostname, { all: true, order: 'verbatim' });
        return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
      }
      const [v4, v6] = await Promise.allSettled([addressesOf(name, 4), addressesOf(name, 6)]);
      const found = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
      if (found.length > 0) return found;
      // Nothing found: a failure (timeout, SERVFAIL) says so, rather than "no such name".
      const failed = [v4, v6].find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      throw notFound(hostname);
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
    async resolveTxt(name, options) {
      options?.onQuery?.(name);
      return records[name] ?? [];
    },
    async lookup(hostname, options) {
      if (isIP(hostname) === 0) options?.onQuery?.(hostname);
      const listed = isIP(hostname) !== 0 ? [hostname] : (addresses[hostname.toLowerCase()] ?? []);
      if (listed.length === 0) throw notFound(hostname);
      return listed.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
    },
  };
}
