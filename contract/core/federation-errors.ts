/**
 * The federation part of the error catalogue (contract/errors.ts): what a peer node, the node
 * directory and outbound fetches can refuse, by situation.
 */
import { defineErrors } from '../error-catalogue.ts';

export const federationErrors = defineErrors({
  // A delivery from a peer node (POST /v1/federation/...): the sending node bounces on a 4xx and
  // retries on a 503. A recipient that takes only contacts' mail and a message_id already taken are
  // the core codes SVC_ERR_RECIPIENT_CONTACTS_ONLY and SVC_ERR_MESSAGE_ID_TAKEN, as for local mail.
  SVC_ERR_FEDERATION_SIGNATURE_INVALID: { status: 403, summary: "The delivered message's signature does not verify against its from_did: forged or altered" },
  SVC_ERR_FEDERATION_RECIPIENT_MISMATCH: {
    status: 403,
    summary: 'The sender signed the message for another identity (its to_did or to_stable_id) than the one it was delivered to',
  },
  SVC_ERR_SENDER_NAMESPACE_LOCAL: { status: 403, summary: "The sender's domain is a namespace of this node, so mail from it cannot come from another node" },
  SVC_ERR_SENDER_NODE_UNKNOWN: {
    status: 403,
    summary: "No node is known for the sender's domain (no peer entry, no node= in its DNS record), so the sender cannot be checked",
  },
  SVC_ERR_SENDER_NOT_FOUND: { status: 403, summary: "The sender's address does not exist on its own node" },
  SVC_ERR_SENDER_KEY_MISMATCH: {
    status: 403,
    summary: "The sender's address holds another key on its node, and no rotation or replacement vouches for the one that signed",
  },
  SVC_ERR_SENDER_DNS_UNVERIFIED: {
    status: 403,
    summary: "The sender's namespace claims DNS verification, but DNS as this node sees it does not name its controller",
  },
  SVC_ERR_SENDER_DNS_FAILED: {
    status: 503,
    summary:
      "The sender's domain could not be looked up in DNS here (no answer in time, or the resolver failed), so the message is deferred, not refused; try again after Retry-After",
  },
  SVC_ERR_FEDERATION_BUDGET_SPENT: {
    status: 503,
    summary:
      'The request used its whole budget for checking senders (its time, or its DNS lookups): the messages not checked are deferred; try again after Retry-After',
  },
  // Finding a recipient's encryption key on its own node (federation/remote-encryption-keys.ts):
  // nothing is encrypted to a key that is missing, or that fails any of these checks.
  SVC_ERR_RECIPIENT_NODE_UNKNOWN: {
    status: 404,
    summary: "No node is known for the recipient's domain (no peer entry, no node= in its DNS record), so its encryption key cannot be looked up",
  },
  SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED: {
    status: 409,
    summary: "The recipient's node publishes no encryption key for it valid now (its address has no did:svc, or its key answer has no encryption_key)",
  },
  SVC_ERR_RECIPIENT_KEY_INVALID: {
    status: 422,
    summary:
      "The recipient's encryption key assertion is malformed, of an unsupported version, algorithm or custody, its key id does not match its key, or its signature does not verify",
  },
  SVC_ERR_RECIPIENT_KEY_WRONG_IDENTITY: {
    status: 422,
    summary:
      "The recipient's encryption key assertion names another identity: its identity_did is not the address's current did:key, or its identity_stable_id not the address's did:svc",
  },
  SVC_ERR_RECIPIENT_KEY_EXPIRED: {
    status: 422,
    summary: "The recipient's encryption key assertion is not valid at this node's time: expired, not yet active, or created in the future",
  },
  // The node directory (the owner's peer table) and asking another node.
  SVC_ERR_PEER_NOT_FOUND: { status: 404, summary: 'The node directory has no peer for this domain' },
  SVC_ERR_PEER_DOMAIN_LOCAL: { status: 409, summary: 'The domain is a namespace of this node: its mail is delivered here, so it cannot have a peer' },
  SVC_ERR_PEER_UNAVAILABLE: { status: 503, summary: 'Another node could not be asked (unreachable, timed out, or its answer was unusable); try again later' },
});
