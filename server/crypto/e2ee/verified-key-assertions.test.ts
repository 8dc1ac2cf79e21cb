/**
 * The cache of verified key assertion signatures: a signature is checked once per assertion, every
 * other rule on every call, and an assertion that differs from a verified one in any field (the
 * signature included) does not pass on its verdict, nor does one changed in place after it verified.
 */
import { describe, expect, it } from 'vitest';
import { testParty } from '../../../test/support/e2ee-parties.ts';
import { parseContractTime } from './encoding.ts';
import { verifyKeyAssertion } from './key-assertion.ts';
import { VerifiedKeyAssertions } from './verified-key-assertions.ts';

const STABLE_ID = 'did:svc:zcache';

describe('verified key assertions', () => {
  it('verify like verifyKeyAssertion, and check one assertion’s signature once', () => {
    const party = testParty({ stableId: STABLE_ID });
    const expect_ = { currentDidKey: party.did, stableId: STABLE_ID, now: Date.now() };
    const verified = new VerifiedKeyAssertions();
    const first = verified.verify(party.encryptionKey, expect_);
    expect(first).toEqual(verifyKeyAssertion(party.encryptionKey, expect_));
    expect(verified.size).toBe(1);
    expect(verified.verify({ ...party.encryptionKey }, expect_)).toEqual(first);
    // The second call found the first one's entry: nothing new was checked.
    expect(verified.size).toBe(1);
  });

  it('run the rules of time and identity on every call for a frozen assertion too, whose facts are worked out once', () => {
    const party = testParty({ stableId: STABLE_ID });
    const frozen = Object.freeze({ ...party.encryptionKey });
    const verified = new VerifiedKeyAssertions();
    const now = Date.now();
    const first = verified.verify(frozen, { currentDidKey: party.did, stableId: STABLE_ID, now });
    // What one caller does with the key it was given changes nothing for the next.
    first.publicKey.fill(0);
    expect(verified.verify(frozen, { currentDidKey: party.did, stableId: STABLE_ID, now })).toEqual(
      verifyKeyAssertion(frozen, { currentDidKey: party.did, stableId: STABLE_ID, now }),
    );
    const expiry = parseContractTime(frozen.expires_at)!;
    expect(() => verified.verify(frozen, { currentDidKey: party.did, stableId: STABLE_ID, now: expiry })).toThrow('encryption key assertion is expired');
    expect(() => verified.verify(frozen, { currentDidKey: testParty().did, stableId: STABLE_ID, now })).toThrow(
      'encryption key assertion identity_did does not match the current did:key',
    );
  });

  it('run the rules of time and identity on every call, after the signature was verified', () => {
    const party = testParty({ stableId: STABLE_ID });
    const verified = new VerifiedKeyAssertions();
    verified.verify(party.encryptionKey, { currentDidKey: party.did, stableId: STABLE_ID, now: Date.now() });
    const expiry = parseContractTime(party.encryptionKey.expires_at)!;
    expect(() => verified.verify(party.encryptionKey, { currentDidKey: party.did, stableId: STABLE_ID, now: expiry })).toThrow(
      'encryption key assertion is expired',
    );
    expect(() => verified.verify(party.encryptionKey, { currentDidKey: testParty().did, stableId: STABLE_ID, now: Date.now() })).toThrow(
      'encryption key assertion identity_did does not match the current did:key',
    );
    expect(() => verified.verify(party.encryptionKey, { currentDidKey: party.did, stableId: 'did:svc:zother', now: Date.now() })).toThrow(
      'encryption key assertion identity_stable_id does not match the identity',
    );
  });

  it('refuse an assertion changed after signing, or re-signed by another key, even when its original was verified', () => {
    const party = testParty({ stableId: STABLE_ID });
    const now = Date.now();
    const verified = new VerifiedKeyAssertions();
    verified.verify(party.encryptionKey, { currentDidKey: party.did, stableId: STABLE_ID, now });
    // Same identity, key id and expiry, but a field the signature covers changed.
    const altered = { ...party.encryptionKey, previous_encryption_key_id: testParty().encryptionKey.encryption_key_id };
    expect(() => verified.verify(altered, { currentDidKey: party.did, stableId: STABLE_ID, now })).toThrow('invalid encryption key assertion signature');
    const forged = { ...party.encryptionKey, signature: testParty({ stableId: STABLE_ID }).encryptionKey.signature };
    expect(() => verified.verify(forged, { currentDidKey: party.did, stableId: STABLE_ID, now })).toThrow('invalid encryption key assertion signature');
    // A refused signature stays refused.
    expect(() => verified.verify(forged, { currentDidKey: party.did, stableId: STABLE_ID, now })).toThrow('invalid encryption key assertion signature');
  });

  it('know a frozen assertion by the object once verified, still running every other rule on it', () => {
    const party = testParty({ stableId: STABLE_ID });
    const frozen = Object.freeze({ ...party.encryptionKey });
    const verified = new VerifiedKeyAssertions();
    const expect_ = { currentDidKey: party.did, stableId: STABLE_ID, now: Date.now() };
    expect(verified.verify(frozen, expect_)).toEqual(verifyKeyAssertion(party.encryptionKey, expect_));
    expect(verified.verify(frozen, expect_)).toEqual(verifyKeyAssertion(party.encryptionKey, expect_));
    expect(() => verified.verify(frozen, { ...expect_, now: parseContractTime(frozen.expires_at)! })).toThrow('encryption key assertion is expired');
    expect(() => verified.verify(frozen, { ...expect_, currentDidKey: testParty().did })).toThrow(
      'encryption key assertion identity_did does not match the current did:key',
    );
  });

  it('look an assertion that is not frozen up by its content every time: one changed in place after its verification is checked afresh', () => {
    const party = testParty({ stableId: STABLE_ID });
    const assertion = { ...party.encryptionKey };
    const now = Date.now();
    const verified = new VerifiedKeyAssertions();
    verified.verify(assertion, { currentDidKey: party.did, stableId: STABLE_ID, now });
    assertion.signature = testParty({ stableId: STABLE_ID }).encryptionKey.signature;
    expect(() => verified.verify(assertion, { currentDidKey: party.did, stableId: STABLE_ID, now })).toThrow('invalid encryption key assertion signature');
  });

  it('name a copy by its content whatever the order of its fields, and never let a value that only prints the same borrow a verdict', () => {
    const party = testParty({ stableId: STABLE_ID });
    const now = Date.now();
    const expect_ = { currentDidKey: party.did, stableId: STABLE_ID, now };
    const verified = new VerifiedKeyAssertions();
    const first = verified.verify({ ...party.encryptionKey }, expect_);
    const reversed = Object.fromEntries(Object.entries(party.encryptionKey).reverse()) as typeof party.encryptionKey;
    expect(verified.verify(reversed, expect_)).toEqual(first);
    // A Date prints as the same JSON text as its ISO string, but is not a string: looked up by its digest, never by that text.
    const dated = { ...party.encryptionKey, created_at: new Date(parseContractTime(party.encryptionKey.created_at)!) } as unknown as typeof party.encryptionKey;
    expect(() => verified.verify(dated, expect_)).toThrow();
  });

  it('keep at most their limit of signatures', () => {
    const verified = new VerifiedKeyAssertions(2);
    for (let i = 0; i < 3; i++) {
      const party = testParty();
      verified.verify(party.encryptionKey, { currentDidKey: party.did, now: Date.now() });
    }
    expect(verified.size).toBe(2);
  });
});
