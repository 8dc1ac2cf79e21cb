/**
 * Encryption key assertions: the vector's verify as upstream signed them (with `custody` among the
 * signed fields), the node's own round-trip, and each way an assertion can be wrong is refused by
 * name, never used.
 */
import { describe, expect, it } from 'vitest';
import { loadCrossLanguageVector, vectorKey } from '../../../test/support/e2ee-vector.ts';
import { didKeyFromPublicKey } from '../did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from '../ed25519.ts';
import { encodeRaw } from './encoding.ts';
import { KeyAssertionError } from './errors.ts';
import {
  buildKeyAssertion,
  encryptionKeyId,
  keyAssertionSigningBytes,
  parseKeyAssertion,
  verifyKeyAssertion,
  type EncryptionKeyAssertion,
  type KeyAssertionExpectation,
} from './key-assertion.ts';
import { generateX25519KeyPair, x25519PublicKey } from './x25519.ts';

const vector = loadCrossLanguageVector();
const DAY = 24 * 60 * 60 * 1000;
const VECTOR_NOW = Date.parse('2026-06-01T00:00:00Z');

function identity() {
  const seed = generateX25519KeyPair().privateKey; // any 32 random bytes make an Ed25519 seed
  const priv = privateKeyFromSeed(seed);
  const did = didKeyFromPublicKey(rawPublicKey(priv));
  return { did, sign: (bytes: Buffer) => signBytes(priv, bytes) };
}

describe('the vector assertions', () => {
  for (const name of ['alice', 'bob'] as const) {
    const id = vector.identities[name];

    it(`${name}'s verifies against its did:key and stable id`, () => {
      const verified = verifyKeyAssertion(parseKeyAssertion(id.encryption_key), { currentDidKey: id.did, stableId: id.stable_id, now: VECTOR_NOW });
      expect(verified.publicKey).toEqual(x25519PublicKey(vectorKey(id.x25519_private)));
      expect(verified.encryptionKeyId).toBe(encryptionKeyId(verified.publicKey));
      expect(verified.custody).toBe('self');
      expect(verified.expiresAt).toBe(Date.parse('2026-08-25T12:00:00Z'));
    });

    it(`${name}'s signature covers custody: without it, it does not verify`, () => {
      const { custody: _custody, ...withoutCustody } = parseKeyAssertion(id.encryption_key);
      expect(() => verifyKeyAssertion(withoutCustody, { currentDidKey: id.did, stableId: id.stable_id, now: VECTOR_NOW })).toThrow(
        /invalid encryption key assertion signature/,
      );
    });
  }

  it('the vector signing seeds are the identities’ did:keys', () => {
    for (const id of Object.values(vector.identities)) expect(didKeyFromPublicKey(rawPublicKey(privateKeyFromSeed(vectorKey(id.signing_seed))))).toBe(id.did);
  });
});

describe('assertions the node makes', () => {
  const now = Date.parse('2026-12-07T10:00:00.750Z');

  it('round-trip, second precision, valid for 90 days, signed with custody', () => {
    const { did, sign } = identity();
    const { publicKey } = generateX25519KeyPair();
    const assertion = buildKeyAssertion({ identityDid: did, identityStableId: 'did:svc:abc', custody: 'self', publicKey, now }, sign);
    expect(assertion.created_at).toBe('2026-12-07T10:00:00Z');
    expect(assertion.not_before).toBe('2026-12-07T10:00:00Z');
    expect(assertion.expires_at).toBe('2027-03-07T10:00:00Z');
    expect(assertion.encryption_public_key).toBe(encodeRaw(publicKey));
    expect(parseKeyAssertion(JSON.parse(JSON.stringify(assertion)))).toEqual(assertion);
    expect(verifyKeyAssertion(assertion, { currentDidKey: did, stableId: 'did:svc:abc', now: now + DAY }).publicKey).toEqual(publicKey);
    expect(keyAssertionSigningBytes(assertion).toString()).toContain('"custody":"self"');
  });

  it('a rotation names the key it replaces; a local identity omits the stable id', () => {
    const { did, sign } = identity();
    const assertion = buildKeyAssertion(
      { identityDid: did, custody: 'self', publicKey: generateX25519KeyPair().publicKey, previousEncryptionKeyId: 'sha256:prev', now },
      sign,
    );
    expect(assertion.previous_encryption_key_id).toBe('sha256:prev');
    expect('identity_stable_id' in assertion).toBe(false);
    expect(() => verifyKeyAssertion(assertion, { currentDidKey: did, now })).not.toThrow();
  });
});

describe('refusals', () => {
  const now = Date.parse('2026-12-07T10:00:00Z');
  const { did, sign } = identity();
  const good = buildKeyAssertion(
    { identityDid: did, identityStableId: 'did:svc:me', custody: 'self', publicKey: generateX25519KeyPair().publicKey, now },
    sign,
  );
  const expectation: KeyAssertionExpectation = { currentDidKey: did, stableId: 'did:svc:me', now: now + 1000 };
  const resigned = (changes: Partial<EncryptionKeyAssertion>): EncryptionKeyAssertion => {
    const { signature: _signature, ...rest } = { ...good, ...changes };
    return { ...rest, signature: encodeRaw(sign(keyAssertionSigningBytes(rest))) };
  };

  const cases: [string, EncryptionKeyAssertion, KeyAssertionExpectation, RegExp][] = [
    ['another identity’s key (substitution)', good, { ...expectation, currentDidKey: identity().did }, /identity_did does not match/],
    ['a different stable id', good, { ...expectation, stableId: 'did:svc:other' }, /identity_stable_id does not match/],
    ['a stable id for a local identity', good, { ...expectation, stableId: undefined }, /must omit identity_stable_id/],
    [
      'a key id that is not the key’s',
      resigned({ encryption_key_id: encryptionKeyId(generateX25519KeyPair().publicKey) }),
      expectation,
      /does not match encryption_public_key/,
    ],
    ['a public key of the wrong length', resigned({ encryption_public_key: encodeRaw(Buffer.alloc(31, 1)) }), expectation, /32 bytes/],
    ['an expired one', good, { ...expectation, now: now + 91 * DAY }, /expired/],
    ['one not active yet', resigned({ not_before: '2026-12-08T10:00:00Z' }), expectation, /not active yet/],
    ['one created in the future', resigned({ created_at: '2026-12-09T10:00:00Z' }), expectation, /in the future/],
    ['an expiry before its start', resigned({ expires_at: '2026-12-07T09:00:00Z' }), expectation, /after not_before/],
    ['an unknown custody', resigned({ custody: 'server' as 'self' }), expectation, /unsupported encryption key custody/],
    ['another algorithm', resigned({ algorithm: 'p256' }), expectation, /unsupported encryption key algorithm/],
    ['another version', resigned({ version: 'aweb-e2ee-key-v2' }), expectation, /unsupported encryption key assertion version/],
    ['a changed field under the old signature', { ...good, expires_at: '2030-01-01T00:00:00Z' }, expectation, /invalid encryption key assertion signature/],
    ['a self assertion where the identity is hosted', good, { ...expectation, expectedCustody: 'hosted_custodial' }, /hosted custodial/],
  ];
  for (const [name, assertion, expect_, message] of cases) {
    it(`refuses ${name}`, () => {
      expect(() => verifyKeyAssertion(assertion, expect_)).toThrow(KeyAssertionError);
      expect(() => verifyKeyAssertion(assertion, expect_)).toThrow(message);
    });
  }

  it('reads only well-formed assertions: unknown fields, non-strings and an empty stable id are refused', () => {
    expect(() => parseKeyAssertion({ ...good, extra: 'x' })).toThrow(/unknown field extra/);
    expect(() => parseKeyAssertion({ ...good, expires_at: 5 })).toThrow(KeyAssertionError);
    expect(() => parseKeyAssertion({ ...good, identity_stable_id: '' })).toThrow(/omit identity_stable_id/);
    expect(() => parseKeyAssertion([good])).toThrow(KeyAssertionError);
    // An empty previous key id or custody is absent, as upstream drops them before signing.
    expect(parseKeyAssertion({ ...good, previous_encryption_key_id: '' })).toEqual(good);
  });
});
