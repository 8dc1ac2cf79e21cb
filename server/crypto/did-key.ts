/**
 * did:key for Ed25519: "did:key:z" + base58btc(0xed 0x01 || public key).
 */
import { base58 } from '@scure/base';
import { MemoCache } from '../memo-cache.ts';

const PREFIX = 'did:key:z';
const MULTICODEC_ED25519 = Uint8Array.of(0xed, 0x01);

export function didKeyFromPublicKey(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new RangeError('Ed25519 public key must be 32 bytes');
  const bytes = new Uint8Array(34);
  bytes.set(MULTICODEC_ED25519, 0);
  bytes.set(publicKey, 2);
  return PREFIX + base58.encode(bytes);
}

// Every signed request decodes its signer's did:key; base58 decoding is slow enough to remember.
const decoded = new MemoCache<Uint8Array | null>(4096);

/** The raw public key of a did:key, or null when the text is not an Ed25519 did:key. */
export function publicKeyFromDidKey(didKey: string): Uint8Array | null {
  if (typeof didKey !== 'string' || !didKey.startsWith(PREFIX) || didKey.length > 256) return null;
  return decoded.get(didKey, () => decodeDidKey(didKey))?.slice() ?? null;
}

function decodeDidKey(didKey: string): Uint8Array | null {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(didKey.slice(PREFIX.length));
  } catch {
    return null;
  }
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) return null;
  return bytes.slice(2);
}

export function isDidKey(value: unknown): value is string {
  return typeof value === 'string' && publicKeyFromDidKey(value) !== null;
}
