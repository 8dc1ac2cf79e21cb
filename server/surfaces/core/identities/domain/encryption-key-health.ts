/**
 * How an identity's end-to-end encryption key stands at the node's time, read from its stored
 * keys (the current one and those it replaced): the renewal window the sweep renews in, and the
 * summary the owner's identity list shows. Pure: the caller reads the rows and says whether the
 * current assertion still verifies.
 */
import type { EncryptionKeySummary } from '../../../../../contract/core/encryption-keys.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * An assertion this close to its expiry is in its renewal window: the node renews one it holds
 * (so a sweep missed for days still renews in time), and the owner sees it as expiring.
 */
export const RENEW_BEFORE_EXPIRY_MS = 15 * DAY_MS;

/** One stored key of an identity, as far as its health needs (ISO 8601 times). */
export interface StoredKeyTimes {
  encryption_key_id: string;
  created_at: string;
  expires_at: string;
  /** Null for the current key; when it was replaced for an earlier one. */
  archived_at: string | null;
}

export interface KeyHealthInput {
  /** Who holds the private key: custody (the node renews it) or the identity's own client. */
  holder: 'node' | 'self';
  keys: readonly StoredKeyTimes[];
  /** Whether the current assertion verifies now against the identity's current keys (what senders are served). */
  served: boolean;
  /** The node's time, ms since the epoch. */
  now: number;
}

export function encryptionKeySummary({ holder, keys, served, now }: KeyHealthInput): EncryptionKeySummary {
  const current = keys.find((key) => key.archived_at === null);
  const earlier = keys.filter((key) => key.archived_at !== null);
  const none = { holder, encryption_key_id: null, created_at: null, expires_at: null, renews_at: null };
  if (current === undefined) return { ...none, state: 'missing', earlier_keys: earlier.length, rotated_at: null };
  const expires = Date.parse(current.expires_at);
  const renews = expires - RENEW_BEFORE_EXPIRY_MS;
  return {
    state: expires <= now ? 'expired' : !served ? 'missing' : renews <= now ? 'expiring' : 'published',
    holder,
    encryption_key_id: current.encryption_key_id,
    created_at: current.created_at,
    expires_at: current.expires_at,
    renews_at: holder === 'node' ? new Date(renews).toISOString() : null,
    earlier_keys: earlier.length,
    // ISO 8601 times of one clock sort as text: the newest archiving is the current key's arrival.
    rotated_at: earlier.reduce<string | null>((newest, key) => (newest === null || key.archived_at! > newest ? key.archived_at : newest), null),
  };
}
