/**
 * DNS verification of a namespace: the `_svcid` TXT record at the domain, or at the nearest
 * ancestor that has one, must name the controller. No record leaves a namespace unverified;
 * a record naming someone else is a mismatch. A resolver failure counts as no answer when
 * registering, so a node offline still works with unverified namespaces; re-verification tells
 * it apart (`lookupFailed`) so an outage never revokes a namespace.
 *
 * Only the names that can hold the record are asked: the domain and its ancestors down to two
 * labels (a top-level domain holds no namespace). A namespace domain has at most
 * MAX_DOMAIN_LABELS labels (crypto/dns-txt.ts refuses longer ones before any lookup), so a check
 * asks at most seven names, within MAX_DNS_QUERIES_PER_REQUEST, and stops at the first record.
 *
 * It is DNS and nothing of the node's own state, so it sits with the node's DNS: the namespace
 * service verifies its own namespaces with it, and federation another node's sender.
 */
import { dnsRecordName, parseDnsRecords, SVC_DNS } from '../crypto/dns-txt.ts';
import { ServiceError } from '../errors.ts';
import { MAX_DNS_QUERIES_PER_REQUEST } from './limits.ts';
import type { DnsResolver } from './resolver.ts';

export type DnsCheck =
  | { status: 'verified'; controllerDid: string; origin: string | null; inherited: boolean }
  | { status: 'mismatch'; controllerDid: string; origin: string | null; inherited: boolean }
  | { status: 'unverified'; reason: string; lookupFailed?: true };

export interface DnsCheckOptions {
  /**
   * Ask DNS again rather than take a kept answer: for acts that follow a DNS change (registering,
   * "verify now"). Federation checks take the cache.
   */
  fresh?: boolean;
}

/**
 * The names whose `_svcid` record may speak for `domain`, nearest first: the domain, then each
 * parent down to two labels; never more than a request may ask.
 */
export function recordCandidates(domain: string): string[] {
  const labels = domain.split('.');
  if (labels.length === 1) return [domain];
  return labels
    .slice(0, -1)
    .map((_, i) => labels.slice(i).join('.'))
    .slice(0, MAX_DNS_QUERIES_PER_REQUEST);
}

export async function checkNamespaceDns(resolver: DnsResolver, domain: string, controllerDid: string, options: DnsCheckOptions = {}): Promise<DnsCheck> {
  for (const [index, name] of recordCandidates(domain).entries()) {
    let records: string[][];
    try {
      records = await resolver.resolveTxt(dnsRecordName(name, SVC_DNS), options.fresh ? { fresh: true } : undefined);
    } catch (error) {
      // A refusal of the request itself (its client is out of tokens: a 429) is not a DNS answer.
      if (error instanceof ServiceError) throw error;
      return { status: 'unverified', reason: `DNS lookup failed: ${(error as Error).message}`, lookupFailed: true };
    }
    const parsed = parseDnsRecords(records, SVC_DNS);
    if (!parsed.ok && parsed.reason === 'absent') continue;
    if (!parsed.ok) return { status: 'unverified', reason: parsed.error };
    const inherited = index > 0;
    const found = { controllerDid: parsed.controllerDid, origin: parsed.origin, inherited };
    return parsed.controllerDid === controllerDid ? { status: 'verified', ...found } : { status: 'mismatch', ...found };
  }
  return { status: 'unverified', reason: 'no _svcid record' };
}
