/**
 * Namespace authority (DESIGN §5): a domain becomes a namespace of this node only with
 * the owner's consent or with DNS proof, a `_svcid` record naming the controller and this node.
 * Whoever merely holds a key proves nothing about a domain: without this rule anyone reaching the
 * node could claim `bigcorp.example` and receive the mail local identities send there.
 */
import { originError } from '../../../crypto/dns-txt.ts';
import type { NamespaceAuthority, NamespaceTrust, VerificationStatus } from '../../../../contract/core/namespaces.ts';

/** Why a namespace exists here: `unproven` only for namespaces registered before the rule. */
export type Authority = NamespaceAuthority;

/**
 * What a reader may believe of an address on a namespace, strongest first: DNS names its
 * controller (`verified`), this node's owner registered it (`owner`), or nobody checked.
 */
export type { NamespaceTrust };

export function namespaceTrust(authority: Authority, status: VerificationStatus): NamespaceTrust {
  if (status === 'verified') return 'verified';
  return authority === 'owner' ? 'owner' : 'unverified';
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** True when `origin` (a record's `node=`) is one of the node's own origins. */
export function isOwnOrigin(origin: string, ownOrigins: readonly string[]): boolean {
  const wanted = originOf(origin);
  return wanted !== null && ownOrigins.some((own) => originOf(own) === wanted);
}

/** The record a controller would publish to prove a namespace lives here, for refusal messages. */
export function proofRecordHint(controllerDid: string, ownOrigins: readonly string[]): string {
  const publicOrigin = ownOrigins.map(originOf).find((origin) => origin !== null && originError(origin) === null);
  return `"svcid=v1; controller=${controllerDid}; node=${publicOrigin ?? "<this node's public https origin>"};"`;
}
