/**
 * The way to the encryption key of an identity on another node, for whoever seals a message to
 * it. Federation finds it on that identity's own node and verifies it
 * (federation/remote-encryption-keys.ts), and core/services.ts wires it in, so the core asks for
 * a key by address and never learns how nodes are found or asked.
 */
import type { EncryptionKeyAssertion, VerifiedEncryptionKey } from '../../../crypto/e2ee/key-assertion.ts';

/**
 * A recipient's current encryption key, verified against its address's keys at this node's time.
 * Remembered and handed to every caller for a few minutes, so it is frozen (the public key's bytes
 * aside, which must not be written to either).
 */
export interface RemoteEncryptionKey {
  address: string;
  /** The address's current did:key, the key that signed the assertion. */
  didKey: string;
  /** The address's did:svc, which the assertion names. */
  stableId: string;
  /** The assertion as its node served it. */
  assertion: EncryptionKeyAssertion;
  key: VerifiedEncryptionKey;
  /** When the address was made and last changed, as its node said; null when it named none. */
  addressCreatedAt: string | null;
  addressUpdatedAt: string | null;
}

export interface RemoteEncryptionKeys {
  /**
   * The current key of `address` (`domain/name`, on another node), or a ServiceError naming why
   * none may be used: SVC_ERR_RECIPIENT_NODE_UNKNOWN, SVC_ERR_RECIPIENT_NOT_FOUND,
   * SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED, SVC_ERR_RECIPIENT_KEY_INVALID,
   * SVC_ERR_RECIPIENT_KEY_WRONG_IDENTITY, SVC_ERR_RECIPIENT_KEY_EXPIRED, or, worth trying again
   * later, SVC_ERR_PEER_UNAVAILABLE.
   */
  find(address: string): Promise<RemoteEncryptionKey>;
  /** The address on another node a lookup found the did:svc `stableId` for, recently; null when none did. */
  addressOf(stableId: string): string | null;
}
