/**
 * How a contact entry is stored. Domains are case-insensitive, so an address's domain part (or a
 * bare domain) is stored lower case, without a trailing dot, as senders' addresses are. Dids are
 * case-sensitive and kept.
 */
import { normalizeDomain } from '../../../../crypto/dns-txt.ts';

export function normalizeContactAddress(value: string): string {
  if (value.startsWith('did:')) return value;
  const slash = value.indexOf('/');
  const domain = slash < 0 ? value : value.slice(0, slash);
  const normalized = normalizeDomain(domain) ?? domain;
  return slash < 0 ? normalized : `${normalized}${value.slice(slash)}`;
}
