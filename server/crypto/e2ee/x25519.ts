/**
 * X25519 through node:crypto (OpenSSL), with keys on the wire as their raw 32 bytes.
 *
 * A private key is used only through an `X25519Agreement`: the one operation decryption needs
 * (Diffie-Hellman with a peer's public key). Custody implements it around a key it never hands
 * out, the way it signs with Ed25519 keys; `agreementFromPrivateKey` is that implementation for a
 * raw key in memory (custody itself, and tests).
 */
import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { MemoCache } from '../../memo-cache.ts';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');

export const X25519_KEY_LENGTH = 32;

export interface X25519Agreement {
  /** The raw public key of the private key behind `agree`. */
  readonly publicKey: Buffer;
  /** The raw Diffie-Hellman output with `peerPublicKey`; throws on a low-order peer (all-zero output). */
  agree(peerPublicKey: Uint8Array): Buffer;
}

export interface X25519KeyPair {
  privateKey: Buffer;
  publicKey: Buffer;
}

function privateKeyObject(raw: Uint8Array): KeyObject {
  if (raw.length !== X25519_KEY_LENGTH) throw new RangeError('X25519 private key must be 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
}

function publicKeyObject(raw: Uint8Array): KeyObject {
  if (raw.length !== X25519_KEY_LENGTH) throw new RangeError('X25519 public key must be 32 bytes');
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

// Importing a public key costs OpenSSL's decoder about as much as the agreement itself. A sender
// seals to the same few published keys send after send, so those are imported once; the peers
// of a recipient's agreement are ephemeral keys, never seen twice, and are not kept.
const publishedKeys = new MemoCache<KeyObject>(1024);

function publishedKeyObject(raw: Uint8Array): KeyObject {
  if (raw.length !== X25519_KEY_LENGTH) throw new RangeError('X25519 public key must be 32 bytes');
  return publishedKeys.get(Buffer.from(raw).toString('hex'), () => publicKeyObject(raw));
}

function rawPublic(key: KeyObject): Buffer {
  const publicKey = key.type === 'public' ? key : createPublicKey(key);
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
}

function rawPrivate(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length);
}

/** A fresh key pair from the OS CSPRNG. */
export function generateX25519KeyPair(): X25519KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { privateKey: rawPrivate(privateKey), publicKey: rawPublic(publicKey) };
}

export function x25519PublicKey(privateKey: Uint8Array): Buffer {
  return rawPublic(privateKeyObject(privateKey));
}

/**
 * Diffie-Hellman. RFC 9180 §7.1.4 requires refusing the all-zero output a low-order peer key
 * produces; OpenSSL refuses it too, and the explicit check keeps that true whatever the backend.
 */
export function x25519(privateKey: KeyObject, peerPublicKey: Uint8Array): Buffer {
  return agree(privateKey, publicKeyObject(peerPublicKey));
}

function agree(privateKey: KeyObject, publicKey: KeyObject): Buffer {
  const shared = diffieHellman({ privateKey, publicKey });
  if (shared.every((byte) => byte === 0)) throw new RangeError('X25519 produced the all-zero shared secret');
  return shared;
}

export function agreementFromPrivateKey(privateKey: Uint8Array): X25519Agreement {
  return agreementFromKeyObject(privateKeyObject(privateKey));
}

/**
 * A fresh key that never leaves memory as bytes: HPKE's ephemeral sender key. Its peer is always
 * a key someone published, so that key's import is remembered. The public half is read as JWK,
 * which node writes without OpenSSL's encoder (a DER export costs about as much as the key pair).
 */
export function ephemeralAgreement(): X25519Agreement {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { publicKey: Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'), agree: (peer) => agree(privateKey, publishedKeyObject(peer)) };
}

function agreementFromKeyObject(key: KeyObject): X25519Agreement {
  return { publicKey: rawPublic(key), agree: (peer) => x25519(key, peer) };
}
