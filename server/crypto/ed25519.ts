/**
 * Ed25519 through node:crypto (OpenSSL): about 10x faster than a JS implementation here.
 * Private key objects are created only inside custody; everything else verifies.
 */
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { MemoCache } from '../memo-cache.ts';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export const SEED_LENGTH = 32;
export const PUBLIC_KEY_LENGTH = 32;
export const SIGNATURE_LENGTH = 64;

/** A private key object from a 32-byte RFC 8032 seed. */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== SEED_LENGTH) throw new RangeError('Ed25519 seed must be 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The raw 32-byte public key of a private or public key object. */
export function rawPublicKey(key: KeyObject): Buffer {
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return spki.subarray(SPKI_PREFIX.length);
}

// Building a KeyObject costs about as much as a verification; the same few keys verify again and again.
const publicKeys = new MemoCache<KeyObject>(1024);

export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  if (raw.length !== PUBLIC_KEY_LENGTH) throw new RangeError('Ed25519 public key must be 32 bytes');
  const key = Buffer.from(raw);
  return publicKeys.get(key.toString('hex'), () => createPublicKey({ key: Buffer.concat([SPKI_PREFIX, key]), format: 'der', type: 'spki' }));
}

export function signBytes(privateKey: KeyObject, message: Uint8Array): Buffer {
  return nodeSign(null, message, privateKey);
}

/** True when `signature` is a valid Ed25519 signature of `message` by `publicKey` (raw 32 bytes). */
export function verifyBytes(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== PUBLIC_KEY_LENGTH || signature.length !== SIGNATURE_LENGTH) return false;
  try {
    return nodeVerify(null, message, publicKeyFromRaw(publicKey), signature);
  } catch {
    return false;
  }
}
