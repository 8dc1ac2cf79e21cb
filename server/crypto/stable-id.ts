/**
 * Stable identity ids (docs/adr/0002-did-svc-identity-log-and-namespace-records.md):
 * "did:<method>:" + base58btc of the first 20 bytes of sha256(raw 32-byte genesis public key), so
 * the id survives every rotation. The node says `did:svc`; upstream vectors say `did:aw`, so the
 * method is a parameter and the suffix is the same for both.
 */
import { base58 } from '@scure/base';
import { sha256 } from './encoding.ts';
import { publicKeyFromDidKey } from './did-key.ts';

export const DID_METHOD = 'svc';
const STABLE_ID_BYTES = 20;
const METHOD_RE = /^[a-z0-9]+$/;

function prefixOf(method: string): string {
  if (!METHOD_RE.test(method)) throw new RangeError(`invalid DID method: ${method}`);
  return `did:${method}:`;
}

export function stableIdFromPublicKey(publicKey: Uint8Array, method: string = DID_METHOD): string {
  if (publicKey.length !== 32) throw new RangeError('Ed25519 public key must be 32 bytes');
  return prefixOf(method) + base58.encode(sha256(publicKey).subarray(0, STABLE_ID_BYTES));
}

/** The stable id a did:key would have as a genesis key, or null when it is not an Ed25519 did:key. */
export function stableIdFromDidKey(didKey: string, method: string = DID_METHOD): string | null {
  const publicKey = publicKeyFromDidKey(didKey);
  return publicKey ? stableIdFromPublicKey(publicKey, method) : null;
}

export function isStableId(value: unknown, method: string = DID_METHOD): value is string {
  const prefix = prefixOf(method);
  // 20 bytes are at most 28 base58 characters; the bound keeps hostile input cheap.
  if (typeof value !== 'string' || !value.startsWith(prefix) || value.length > prefix.length + 28) return false;
  const suffix = value.slice(prefix.length);
  if (suffix === '') return false;
  try {
    return base58.decode(suffix).length === STABLE_ID_BYTES;
  } catch {
    return false;
  }
}
