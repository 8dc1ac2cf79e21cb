/**
 * DNS verification of a namespace: the `_svcid` TXT record at the domain, or at the nearest
 * ancestor that has one, must name the controller. No record leaves a namespace unverified;
 * a record naming someone else is a mismatch. A resolver failure counts as no answer when
 * registering, so a node offline still works with unverified namespaces; re-verification tells
 * it apart (`lookupFailed`) so an outage never revokes a namespace.
 */
import { dnsRecordName, parseDnsRecords, SVC_DNS } from '../../../crypto/dns-txt.ts';
import type { DnsResolver } from '../../../dns/resolver.ts';
import type { VerificationStatus } from '../../../../contract/core/namespaces.ts';

export type { VerificationStatus };

export type DnsCheck =
  | { status: 'verified'; controllerDid: string; origin: string | null; inherited: boolean }
  | { status: 'mismatch'; controllerDid: string; origin: string | null; inherited: boolean }
  | { status: 'unverified'; reason: string; lookupFailed?: true };

/** The domain, then each parent down to two labels. */
function candidates(domain: string): string[] {
  const labels = domain.split('.');
  if (labels.length === 1) return [domain];
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

export async function checkNamespaceDns(resolver: DnsResolver, domain: string, controllerDid: string): Promise<DnsCheck> {
  for (const [index, name] of candidates(domain).entries()) {
    let records: string[][];
    try {
      records = await resolver.resolveTxt(dnsRecordName(name, SVC_DNS));
    } catch (error) {
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
