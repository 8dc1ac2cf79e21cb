/**
 * Identities for E2EE tests: an Ed25519 signing key, an X25519 encryption key and the identity's
 * signed key assertion, as custody would hold and publish them.
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { didKeyFromPublicKey } from '../../server/crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from '../../server/crypto/ed25519.ts';
import { buildKeyAssertion, type EncryptionKeyAssertion } from '../../server/crypto/e2ee/key-assertion.ts';
import type { WrapReader } from '../../server/crypto/e2ee/key-wrap.ts';
import type { SealParty } from '../../server/crypto/e2ee/seal-envelope.ts';
import { agreementFromPrivateKey, generateX25519KeyPair, type X25519KeyPair } from '../../server/crypto/e2ee/x25519.ts';

export interface TestParty extends SealParty {
  sign(bytes: Buffer): Buffer;
  /** The Ed25519 key `sign` signs with (what custody would lend the seal worker). */
  signingKey: KeyObject;
  keys: X25519KeyPair;
  encryptionKey: EncryptionKeyAssertion;
  reader: WrapReader;
}

export interface PartyOptions {
  address?: string;
  stableId?: string;
  teamId?: string;
  /** When the assertion is made; it is valid for 90 days from then. */
  now?: number;
}

export function testParty(options: PartyOptions = {}): TestParty {
  const signing = privateKeyFromSeed(randomBytes(32));
  const did = didKeyFromPublicKey(rawPublicKey(signing));
  const sign = (bytes: Buffer): Buffer => signBytes(signing, bytes);
  const keys = generateX25519KeyPair();
  const encryptionKey = buildKeyAssertion(
    { identityDid: did, identityStableId: options.stableId, custody: 'self', publicKey: keys.publicKey, now: options.now ?? Date.now() - 60_000 },
    sign,
  );
  return {
    address: options.address,
    did,
    stableId: options.stableId,
    teamId: options.teamId,
    encryptionKey,
    sign,
    signingKey: signing,
    keys,
    reader: { did, stableId: options.stableId, address: options.address, key: agreementFromPrivateKey(keys.privateKey) },
  };
}
