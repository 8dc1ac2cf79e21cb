/**
 * What a reader may believe of a sender's address, shown beside the signature badge: a valid
 * signature only says which key signed, not that the key may speak for `bigcorp.example/ceo`.
 * A local sender's namespace is read now (it may since have been verified or revoked); for a
 * sender on another node, what the checks found when the message arrived is all there is.
 */
import type { NamespaceTrust } from '../namespaces/authority.ts';
import type { NamespaceService } from '../namespaces/service.ts';

export interface SenderOfMessage {
  from_address: string | null;
  /** The message came from another node. */
  remote: boolean;
  /** For remote messages: the stored finding (`from_namespace_trust`). */
  from_namespace_trust: string | null;
}

export function senderNamespaceTrust(namespaces: NamespaceService, message: SenderOfMessage): NamespaceTrust | null {
  if (message.from_address === null) return null;
  if (message.remote) return message.from_namespace_trust === 'verified' ? 'verified' : 'unverified';
  return namespaces.trustOfAddress(message.from_address);
}
