/**
 * The new-team form's rules, pure and tested in team-form.test.ts: the domain it starts with (the
 * one the owner gave at setup, as the acting identity's address carries it) and its checks, the
 * node's own (contract/core-rules.ts: a team name is an address name, its domain a namespace
 * domain), so the form refuses exactly what the node would, as the person types.
 */
import { addressNameProblem, domainProblem, normalizeDomainName } from '../../../contract/core-rules.ts';
import type { Identity, Namespace } from '../api/owner.ts';

export const teamNameProblem = addressNameProblem;
export const teamDomainProblem = domainProblem;

/**
 * The domain a new team most likely belongs to: the acting identity's (the domain given at setup,
 * or the node's own `.local` name when none was), else the first domain whose key this node
 * holds; '' when there is none yet.
 */
export function suggestedTeamDomain(identity: Pick<Identity, 'address'> | null, namespaces: readonly Pick<Namespace, 'domain' | 'node_controlled'>[]): string {
  const fromAddress = identity?.address?.split('/')[0] ?? '';
  if (fromAddress !== '' && normalizeDomainName(fromAddress) !== null) return fromAddress;
  return namespaces.find((namespace) => namespace.node_controlled)?.domain ?? '';
}

/** The team's id as the node will make it (`<name>:<domain>`), for the preview under the form. */
export function teamIdPreview(name: string, domain: string): string {
  return `${name.trim() || 'name'}:${normalizeDomainName(domain) ?? (domain.trim() || 'domain')}`;
}
