/**
 * Which node answers for a namespace domain (DESIGN §8): the owner's peer table first (set by
 * hand, for nodes DNS does not know yet or tests on loopback), then the `node=` field of the
 * domain's `_svcid` TXT record. Only these two are trusted: a message's own claim about where
 * its sender lives never is, or anyone could vouch for an address they made up.
 */
import type { NodeContext } from '../context.ts';
import type { DnsResolver } from '../dns/resolver.ts';
import { isoNow } from '../clock.ts';
import { dnsRecordName, normalizeDomain, parseDnsRecords, SVC_DNS } from '../crypto/dns-txt.ts';
import { invalid, notFound } from '../errors.ts';
import type { Peer, PeerRemoved } from '../../contract/node/peers.ts';
import { queueOf } from './outbox-store.ts';
import { deletePeer, findPeer, listPeers, upsertPeer } from './peer-store.ts';

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

  /** The peers, each with what waits for it in the outbox. */
  list(): Peer[] {
    return listPeers(this.#ctx.db).map((peer) => ({ ...peer, queue: queueOf(this.#ctx.db, peer.domain) }));
  }

  /** Adds or replaces the node for `domain`; returned with what waits for it. */
  set(domainInput: string, urlInput: string): Peer {
    const domain = normalizeDomain(domainInput);
    if (domain === null) throw invalid('SVC_ERR_VALIDATION', [{ loc: ['body', 'domain'], msg: 'not a valid domain name', type: 'value_error' }]);
    const url = peerOrigin(urlInput);
    if (url === null)
      throw invalid('SVC_ERR_VALIDATION', [{ loc: ['body', 'url'], msg: 'must be an http(s) origin such as https://node.example.com', type: 'value_error' }]);
    return { ...upsertPeer(this.#ctx.db, domain, url, isoNow(this.#ctx.clock)), queue: queueOf(this.#ctx.db, domain) };
  }

  remove(domainInput: string): PeerRemoved {
    const domain = normalizeDomain(domainInput) ?? domainInput;
    if (!deletePeer(this.#ctx.db, domain)) throw notFound('SVC_ERR_PEER_NOT_FOUND', `No peer for ${domain}`);
    return { domain, removed: true };
  }

  /** The owner's peer-table entry for `domain`, if any. */
  peerUrl(domain: string): string | null {
    return findPeer(this.#ctx.db, domain)?.url ?? null;
  }

  /**
   * The node for `domain`, or null when neither the peer table nor DNS names one. A DNS lookup that
   * failed (timed out, SERVFAIL) rejects: it proved nothing, unlike an answer without a record.
   * `dns`: the resolver to ask (an inbound request's, which counts and charges its lookups).
   */
  async find(domain: string, dns: DnsResolver = this.#ctx.dns): Promise<NodeLocation | null> {
    const peer = this.peerUrl(domain);
    if (peer !== null) return { url: peer, via: 'peer' };
    const parsed = parseDnsRecords(await dns.resolveTxt(dnsRecordName(domain, SVC_DNS)), SVC_DNS);
    return parsed.ok && parsed.origin !== null ? { url: parsed.origin, via: 'dns' } : null;
  }

  /** `find`, with a failed lookup as no node: the outbox retries either way. */
  async locate(domain: string): Promise<NodeLocation | null> {
    try {
      return await this.find(domain);
    } catch {
      return null;
    }
  }
}
