/**
 * Which node answers for a namespace domain (DESIGN §8): the owner's peer table first (set by
 * hand, for nodes DNS does not know yet or tests on loopback), then the `node=` field of the
 * domain's `_svcid` TXT record. Only these two are trusted: a message's own claim about where
 * its sender lives never is, or anyone could vouch for an address they made up.
 */
import type { NodeContext } from '../context.ts';
import { isoNow } from '../clock.ts';
import { dnsRecordName, normalizeDomain, parseDnsRecords, SVC_DNS } from '../crypto/dns-txt.ts';
import { invalid, notFound } from '../errors.ts';
import type { Peer, PeerRemoved } from '../../contract/node/peers.ts';

// A peer is on the owner API's wire: the contract defines it (contract/node/peers.ts).
export type { Peer };

/**
 * Where a domain's node was found. `via` is what the outbound client (server/net/remote-client.ts)
 * goes by: a peer the owner set may be at any address (a LAN, loopback in tests); a node named by
 * DNS, which whoever controls the domain can point anywhere, is only reached at public addresses.
 */
export interface NodeLocation {
  url: string;
  via: 'peer' | 'dns';
}

/** An http(s) origin (no path, query or credentials), as a peer's URL must be. */
export function peerOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return null;
  return url.origin;
}

export class NodeDirectory {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  list(): Peer[] {
    return this.#ctx.db.prepare(`SELECT domain, url, created_at, updated_at FROM peers ORDER BY domain`).all() as Peer[];
  }

  /** Adds or replaces the node for `domain`. */
  set(domainInput: string, urlInput: string): Peer {
    const domain = normalizeDomain(domainInput);
    if (domain === null) throw invalid([{ loc: ['body', 'domain'], msg: 'not a valid domain name', type: 'value_error' }]);
    const url = peerOrigin(urlInput);
    if (url === null) throw invalid([{ loc: ['body', 'url'], msg: 'must be an http(s) origin such as https://node.example.com', type: 'value_error' }]);
    const now = isoNow(this.#ctx.clock);
    this.#ctx.db
      .prepare(
        `INSERT INTO peers (domain, url, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (domain) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at`,
      )
      .run(domain, url, now, now);
    return this.#ctx.db.prepare(`SELECT domain, url, created_at, updated_at FROM peers WHERE domain = ?`).get(domain) as Peer;
  }

  remove(domainInput: string): PeerRemoved {
    const domain = normalizeDomain(domainInput) ?? domainInput;
    const { changes } = this.#ctx.db.prepare(`DELETE FROM peers WHERE domain = ?`).run(domain);
    if (changes === 0) throw notFound(`No peer for ${domain}`);
    return { domain, removed: true };
  }

  /** The owner's peer-table entry for `domain`, if any. */
  peerUrl(domain: string): string | null {
    return (this.#ctx.db.prepare(`SELECT url FROM peers WHERE domain = ?`).pluck().get(domain) as string | undefined) ?? null;
  }

  /** The node for `domain`, or null when neither the peer table nor DNS names one. */
  async locate(domain: string): Promise<NodeLocation | null> {
    const peer = this.#ctx.db.prepare(`SELECT url FROM peers WHERE domain = ?`).pluck().get(domain) as string | undefined;
    if (peer !== undefined) return { url: peer, via: 'peer' };
    let records: string[][];
    try {
      records = await this.#ctx.dns.resolveTxt(dnsRecordName(domain, SVC_DNS));
    } catch {
      return null;
    }
    const parsed = parseDnsRecords(records, SVC_DNS);
    return parsed.ok && parsed.origin !== null ? { url: parsed.origin, via: 'dns' } : null;
  }
}
