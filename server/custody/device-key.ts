/**
 * A device's own keys, both derived from one random 32-byte device secret under labels of their
 * own: an Ed25519 key that signs the device's requests to the person's other devices (named by
 * its did:key), and an X25519 key that the identities' keys are sealed to when the device joins.
 * The secret is made on the device and never leaves it; custody keeps it wrapped like its other
 * secrets, and a joining device holds it in memory only until its custody exists.
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { didKeyFromPublicKey } from '../crypto/did-key.ts';
import { agreementFromPrivateKey, type X25519Agreement } from '../crypto/e2ee/x25519.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from '../crypto/ed25519.ts';
import { deriveKey } from './aead.ts';

const SIGN_KEY_INFO = 'svc-node device signing key v1';
const BOX_KEY_INFO = 'svc-node device box key v1';

export const DEVICE_SECRET_LENGTH = 32;

export class DeviceKeys {
  /** The device's signing key as a did:key: how every other device names and checks it. */
  readonly signKey: string;
  /** The raw 32-byte X25519 public key what is sealed to this device is sealed to. */
  readonly boxKey: Buffer;
  readonly #signing: KeyObject;
  readonly #agreement: X25519Agreement;

  constructor(secret: Uint8Array) {
    if (secret.length !== DEVICE_SECRET_LENGTH) throw new RangeError('a device secret is 32 bytes');
    const seed = deriveKey(secret, SIGN_KEY_INFO);
    const boxPrivate = deriveKey(secret, BOX_KEY_INFO);
    try {
      this.#signing = privateKeyFromSeed(seed);
      this.#agreement = agreementFromPrivateKey(boxPrivate);
    } finally {
      seed.fill(0);
      boxPrivate.fill(0);
    }
    this.signKey = didKeyFromPublicKey(rawPublicKey(this.#signing));
    this.boxKey = this.#agreement.publicKey;
  }

  sign(message: Uint8Array): Buffer {
    return signBytes(this.#signing, message);
  }

  /** The X25519 agreement (its private key stays inside), for opening what was sealed to this device. */
  get agreement(): X25519Agreement {
    return this.#agreement;
  }
}

/** A new device secret, from the CSPRNG. */
export function newDeviceSecret(): Buffer {
  return randomBytes(DEVICE_SECRET_LENGTH);
}
