/**
 * Ingestion: what a node checks before it stores or routes an envelope it cannot read. Upstream's
 * envelopes pass at their own time; stale, future, replayed-late, re-addressed, downgraded and
 * policy-less envelopes are refused, each with its own error.
 */
import { describe, expect, it } from 'vitest';
import { loadCrossLanguageVector } from '../../../test/support/e2ee-vector.ts';
import { testParty, type TestParty } from '../../../test/support/e2ee-parties.ts';
import { encodeRaw } from './encoding.ts';
import { envelopeSigningBytes, keyWrapsHash, parseEnvelope, type E2eeEnvelope } from './envelope.ts';
import {
  EnvelopeBindingError,
  EnvelopeHashMismatchError,
  EnvelopePolicyError,
  EnvelopeSignatureError,
  KeyAssertionError,
  MalformedEnvelopeError,
  StaleEnvelopeError,
  UnsupportedSuiteError,
} from './errors.ts';
import { buildKeyAssertion } from './key-assertion.ts';
import { sealEnvelope } from './seal-envelope.ts';
import { verifyEnvelopeForIngestion, type IngestionExpectation } from './verify-envelope.ts';

const vector = loadCrossLanguageVector();
const MINUTE = 60_000;

describe('upstream’s envelopes at ingestion', () => {
  const { alice, bob } = vector.identities;
  for (const name of ['go_mail_envelope', 'python_mail_envelope'] as const) {
    const envelope = parseEnvelope(vector[name]);
    const created = Date.parse(envelope.created_at);
    const expectation: IngestionExpectation = {
      kind: 'mail',
      messageId: envelope.message_id,
      conversationId: envelope.conversation_id,
      sender: { did: alice.did, stableId: alice.stable_id },
      recipients: [{ did: bob.did, stableId: bob.stable_id, address: bob.address }],
      now: created + MINUTE,
    };

    it(`${name} is accepted within its window`, () => {
      expect(() => verifyEnvelopeForIngestion(envelope, expectation)).not.toThrow();
    });

    it(`${name} is refused once expired, and when it claims to come from the future`, () => {
      expect(() => verifyEnvelopeForIngestion(envelope, { ...expectation, now: created + 5 * MINUTE + 1000 })).toThrow(StaleEnvelopeError);
      expect(() => verifyEnvelopeForIngestion(envelope, { ...expectation, now: created - 6 * MINUTE })).toThrow(StaleEnvelopeError);
    });

    it(`${name} is refused for another recipient, sender, message or conversation`, () => {
      expect(() => verifyEnvelopeForIngestion(envelope, { ...expectation, recipients: [{ did: alice.did, stableId: alice.stable_id }] })).toThrow(
        EnvelopeBindingError,
      );
      expect(() => verifyEnvelopeForIngestion(envelope, { ...expectation, recipients: [{ did: bob.did, stableId: 'did:aw:someoneelse' }] })).toThrow(
        EnvelopeBindingError,
      );
      expect(() => verifyEnvelopeForIngestion(envelope, { ...expectation, sender: { did: bob.did } })).toThrow(EnvelopeBindingError);
      expect(() => verifyEnvelopeForIngestion(envelope, { ...expectation, messageId: 'other' })).toThrow(EnvelopeBindingError);
      expect(() => verifyEnvelopeForIngestion(envelope, { ...expectation, conversationId: 'other' })).toThrow(EnvelopeBindingError);
      expect(() => verifyEnvelopeForIngestion(envelope, { ...expectation, kind: 'chat' })).toThrow(EnvelopeBindingError);
    });

    it(`${name} with its suite downgraded is refused`, () => {
      const downgraded = { ...envelope, crypto: { ...envelope.crypto, suite: 'aweb-e2ee-v1' } };
      expect(() => verifyEnvelopeForIngestion(downgraded, expectation)).toThrow(UnsupportedSuiteError);
    });
  }
});

describe('envelopes a dishonest or broken sender signed', () => {
  const NOW = Date.parse('2026-12-07T10:00:00Z');
  const alice = testParty({ address: 'alice.example/alice', stableId: 'did:svc:alice', now: NOW - MINUTE });
  const bob = testParty({ address: 'bob.example/bob', stableId: 'did:svc:bob', now: NOW - MINUTE });
  const made = (sender: TestParty = alice): E2eeEnvelope =>
    sealEnvelope({ kind: 'mail', sender, recipients: [bob], subject: 's', body: 'b', messageId: 'm-1', conversationId: 'c-1', createdAt: NOW }, sender);
  const expectation: IngestionExpectation = {
    kind: 'mail',
    messageId: 'm-1',
    conversationId: 'c-1',
    sender: { did: alice.did, stableId: alice.stableId },
    recipients: [{ did: bob.did, stableId: bob.stableId, address: bob.address }],
    now: NOW + 1000,
  };
  const resign = (envelope: E2eeEnvelope, sender: TestParty = alice): E2eeEnvelope => {
    const { signature: _signature, ...rest } = envelope;
    return { ...rest, signature: encodeRaw(sender.sign(envelopeSigningBytes(rest))) };
  };
  const withWraps = (envelope: E2eeEnvelope, wraps: E2eeEnvelope['key_wraps']): E2eeEnvelope =>
    resign({ ...envelope, key_wraps: wraps, crypto: { ...envelope.crypto, key_wraps_hash: keyWrapsHash(wraps) } });

  it('a good one passes, a forged signature does not', () => {
    expect(() => verifyEnvelopeForIngestion(made(), expectation)).not.toThrow();
    expect(() => verifyEnvelopeForIngestion(resign(made(), bob), expectation)).toThrow(EnvelopeSignatureError);
  });

  it('a policy that allows plaintext, or does not require E2EE', () => {
    const envelope = made();
    expect(() => verifyEnvelopeForIngestion(resign({ ...envelope, policy: { requires_e2ee: false, legacy_plaintext_allowed: false } }), expectation)).toThrow(
      EnvelopePolicyError,
    );
    expect(() => verifyEnvelopeForIngestion(resign({ ...envelope, policy: { requires_e2ee: true, legacy_plaintext_allowed: true } }), expectation)).toThrow(
      EnvelopePolicyError,
    );
  });

  it('an expiry further than five minutes out', () => {
    expect(() => verifyEnvelopeForIngestion(resign({ ...made(), expires_at: '2026-12-07T10:05:01Z' }), expectation)).toThrow(/beyond the five-minute/);
  });

  it('the all-zero content nonce the contract forbids', () => {
    const envelope = made();
    const zero = resign({ ...envelope, crypto: { ...envelope.crypto, content_nonce: encodeRaw(Buffer.alloc(12)) } });
    expect(() => verifyEnvelopeForIngestion(zero, expectation)).toThrow(MalformedEnvelopeError);
  });

  it('key wraps that do not line up with the recipients and the sender', () => {
    const envelope = made();
    const [delivery, copy] = envelope.key_wraps as [E2eeEnvelope['key_wraps'][0], E2eeEnvelope['key_wraps'][0]];
    expect(() => verifyEnvelopeForIngestion(withWraps(envelope, [delivery]), expectation)).toThrow(/exactly one sender_copy/);
    expect(() => verifyEnvelopeForIngestion(withWraps(envelope, [delivery, copy, copy]), expectation)).toThrow(/exactly one sender_copy/);
    expect(() => verifyEnvelopeForIngestion(withWraps(envelope, [copy]), expectation)).toThrow(/one delivery key wrap per recipient/);
    const toOtherKey = { ...delivery, recipient_encryption_key_id: copy.recipient_encryption_key_id };
    expect(() => verifyEnvelopeForIngestion(withWraps(envelope, [toOtherKey, copy]), expectation)).toThrow(/sealed to another key/);
    const copyToBob = { ...copy, recipient_did: bob.did };
    expect(() => verifyEnvelopeForIngestion(withWraps(envelope, [delivery, copyToBob]), expectation)).toThrow(/sender_copy key wrap is not the sender/);
    const unknownAlgorithm = { ...delivery, algorithm: 'rsa-oaep' };
    expect(() => verifyEnvelopeForIngestion(withWraps(envelope, [unknownAlgorithm, copy]), expectation)).toThrow(UnsupportedSuiteError);
  });

  it('hashes that disagree with the bytes, even under a valid signature', () => {
    const envelope = made();
    expect(() => verifyEnvelopeForIngestion(resign({ ...envelope, ciphertext: made().ciphertext }), expectation)).toThrow(EnvelopeHashMismatchError);
  });

  it('an embedded sender key that is not the sender’s, or no longer valid at the message’s time', () => {
    const local = testParty({ now: NOW - MINUTE });
    const localExpectation = { ...expectation, sender: { did: local.did } };
    const envelope = made(local);
    expect(() => verifyEnvelopeForIngestion(envelope, localExpectation)).not.toThrow();
    expect(() => verifyEnvelopeForIngestion(resign({ ...envelope, sender_encryption_key: bob.encryptionKey }, local), localExpectation)).toThrow(
      KeyAssertionError,
    );
    const expired = buildKeyAssertion(
      { identityDid: local.did, custody: 'self', publicKey: local.keys.publicKey, now: NOW - 91 * 24 * 60 * MINUTE },
      local.sign,
    );
    const withExpired = { ...envelope, sender_encryption_key: expired, from: { ...envelope.from, encryption_key_id: expired.encryption_key_id } };
    expect(() => verifyEnvelopeForIngestion(resign(withExpired, local), localExpectation)).toThrow(
      /sender_encryption_key: encryption key assertion is expired/,
    );
  });
});
