/**
 * DNS TXT lookups sit behind this interface: DNS is a system edge, so tests substitute a table
 * and the node uses node:dns.
 */
import { promises as dns } from 'node:dns';

export interface DnsResolver {
  /** TXT records at `name`, each as its list of strings; [] when the name has none. */
  resolveTxt(name: string): Promise<string[][]>;
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
};

/** A resolver answering from a fixed table: for tests and for nodes run with DNS checks off. */
export function staticDnsResolver(records: Record<string, string[][]> = {}): DnsResolver & {
  records: Record<string, string[][]>;
} {
  return {
    records,
    async resolveTxt(name) {
      return records[name] ?? [];
    },
  };
}
