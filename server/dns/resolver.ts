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

export const systemDnsResolver: DnsResolver = {
  async resolveTxt(name) {
    try {
      return await dns.resolveTxt(name);
    } catch (error) {
      if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? '')) return [];
      throw error;
    }
  },
  async lookup(hostname) {
    const found = await dns.lookup(hostname, { all: true, order: 'verbatim' });
    return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  },
};

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
