/**
 * What federation needs of the core, and nothing more: the identities it delivers to, their
 * contacts, and storing what arrived for them or what could not be delivered for them.
 * Federation sits below the core's aggregates (it is their outbox and their door for other
 * nodes), so it declares what it calls here and the core implements it
 * (server/surfaces/core/federation-core.ts, wired in core/services.ts): federation never reads
 * the core's tables nor calls its services itself.
 *
 * The types that cross it are federation's: what it established about a sender (CheckedSender)
 * and a bounce it reports (Bounce). An identity it delivers to is the core's own record, of which
 * federation reads only what HostedRecipient names and which it hands back to store a message for
 * it; the port is generic in that record, so the core gets back exactly what it gave.
 */
import type { FederatedChat, FederatedMail, FederatedMessage } from '../../contract/core/federation.ts';
import type { Reachability } from '../../contract/core/identities.ts';
import type { FoundEncryptionKey } from './remote-encryption-keys.ts';

/** What federation reads of an identity of this node that a message is for. */
export interface HostedRecipient {
  agent_id: string;
  /** Its keys, which a sender that named them must have signed for (wire.ts recipientProblem). */
  did_key: string;
  did_aw: string | null;
  /** `contacts-only`: it takes mail from another node only from a sender its contacts name. */
  address_reachability: Reachability;
}

/** What inbound.ts established about the sender of a message from another node. */
export interface CheckedSender {
  nodeUrl: string;
  /** `verified` only when the sender's node reports its namespace DNS-verified and DNS here agrees. */
  namespaceTrust: 'verified' | 'unverified';
}

/** What a contact entry can name a sender on another node by. */
export interface SenderKeys {
  didKey: string;
  stableId: string | null;
  address: string;
}

/**
 * An arriving mail's envelope as the core checked it (handed back to store the mail): the
 * normalised envelope, and what the node opened of it for the recipient when it holds the
 * recipient's keys (null when the recipient holds its own).
 */
export interface ArrivedEnvelope {
  envelopeJson: string;
  /** The envelope's signature, by its sender: what the stored row keeps as its signature. */
  signature: string;
  opened: { subject: string; body: string } | null;
}

/** A report, from this node, that a message to another node did not arrive. */
export interface Bounce {
  /** The address the failed message was sent from (the sender's, as it signed). */
  from: string;
  subject: string;
  body: string;
  at: string;
}

export interface FederationCore<Recipient extends HostedRecipient = HostedRecipient> {
  /** Whether `domain` is a namespace of this node. */
  isLocal(domain: string): boolean;
  /**
   * The active identity `address` names on this node. Throws the refusal when it names none: not
   * an address, a namespace of another node, nobody, or an identity that no longer receives.
   */
  hostedRecipient(address: string): Recipient;
  /** Whether the contacts of the identity `agentId` name `sender`. */
  isContact(agentId: string, sender: SenderKeys): boolean;
  /**
   * Whether this very message (its id, from its key) is stored here already, as a retry after a
   * lost answer is. Throws the refusal when another message holds its id.
   */
  arrivedBefore(message: FederatedMessage): boolean;
  /**
   * Checks an arriving end-to-end encrypted mail's envelope for its recipient as the contract
   * checks at ingestion (what the envelope says against what the mail says, freshness, the key it
   * is sealed to, hashes, signature), and opens it when the node holds the recipient's keys.
   * Throws the refusal (a 4xx whose detail names fields, never content).
   */
  checkArrivedEnvelope(mail: FederatedMail, recipient: Recipient): ArrivedEnvelope;
  /** Throws the refusal when the recipient takes only end-to-end encrypted mail and `mail` is plaintext. */
  checkArrivedPlaintext(recipient: Recipient): void;
  /**
   * Stores checked mail in its recipient's inbox, in the caller's transaction (`encrypted`: what
   * checkArrivedEnvelope made of its envelope). False when another delivery of the same id got
   * there first (two raced); `arrivedBefore` says what that one was.
   */
  storeArrivedMail(mail: FederatedMail, recipient: Recipient, sender: CheckedSender, now: string, encrypted?: ArrivedEnvelope): boolean;
  /**
   * The wire form of a mail the outbox seals at delivery: `mail` is the sender's own signed copy,
   * sealed now for `recipientKey` (found on the recipient's node) and the sender's own key, signed
   * again with subject and body empty. Throws a ServiceError when the sender can no longer seal
   * (it is gone, or has no valid key of its own).
   */
  sealMail(fromAgentId: string, mail: FederatedMail, recipientKey: FoundEncryptionKey): FederatedMail;
  /**
   * Stores a checked chat message in the session of its sender and recipient, and tells the
   * session's viewers. Throws the recipient's refusal (a contacts-only identity that neither has
   * the sender as a contact nor answered it before).
   */
  storeArrivedChat(
    message: FederatedChat,
    recipient: Recipient,
    sender: { contact: boolean; namespaceTrust: CheckedSender['namespaceTrust'] },
    encrypted?: ArrivedEnvelope,
  ): void;
  /**
   * As checkArrivedEnvelope, for an end-to-end encrypted chat message: its envelope checked for
   * its one recipient here (kind chat, the conversation it names), and opened when the node holds
   * the recipient's keys.
   */
  checkArrivedChatEnvelope(chat: FederatedChat, recipient: Recipient): ArrivedEnvelope;
  /**
   * As sealMail, for a chat message the outbox seals at delivery: sealed for that one remote
   * participant's key and the sender's own, the sender's session as its conversation.
   */
  sealChat(fromAgentId: string, chat: FederatedChat, recipientKey: FoundEncryptionKey): FederatedChat;
  /** Puts `bounce` in the inbox of the identity `agentId`, which sent the message; nothing when it is gone. */
  storeBounce(agentId: string, bounce: Bounce): void;
}
