/**
 * Reading upstream's envelopes: both envelopes of the cross-language vector (one made by upstream's
 * Go client, one by its Python server) decrypt with bob's key, and with alice's through the
 * sender copy, to the same bytes; anyone else is refused as a non-recipient.
 */
import { describe, expect, it } from 'vitest';
import { loadCrossLanguageVector, vectorKey, type VectorIdentity } from '../../../test/support/e2ee-vector.ts';
import { parseEnvelope } from './envelope.ts';
import { NotARecipientError } from './errors.ts';
import { openEnvelope } from './open-envelope.ts';
import { agreementFromPrivateKey, generateX25519KeyPair } from './x25519.ts';
import type { WrapReader } from './key-wrap.ts';

const vector = loadCrossLanguageVector();
const { alice, bob } = vector.identities;

function reader(identity: VectorIdentity): WrapReader {
  return { did: identity.did, stableId: identity.stable_id, address: identity.address, key: agreementFromPrivateKey(vectorKey(identity.x25519_private)) };
}

describe('upstream envelopes', () => {
  it('the Python-made envelope decrypts for bob to the plaintext upstream asserts', () => {
    const opened = openEnvelope(parseEnvelope(vector.python_mail_envelope), reader(bob));
    expect(opened.wrapPurpose).toBe('delivery');
    expect(opened.inner.subject).toBe('python fixture subject');
    expect(opened.inner.body).toBe('python fixture body');
    expect(opened.inner.message_id).toBe('11111111-1111-1111-1111-111111111111');
    expect(opened.inner.from).toEqual({ address: alice.address, did: alice.did, stable_id: alice.stable_id, team_id: alice.team_id });
  });

  it('the Go-made envelope decrypts for bob', () => {
    const opened = openEnvelope(parseEnvelope(vector.go_mail_envelope), reader(bob));
    expect(opened.wrapPurpose).toBe('delivery');
    expect(opened.inner.kind).toBe('mail');
    expect(opened.inner.message_id).toBe('33333333-3333-3333-3333-333333333333');
    expect(opened.inner.conversation_id).toBe('44444444-4444-4444-4444-444444444444');
    expect(opened.inner.recipients).toEqual([{ address: bob.address, did: bob.did, stable_id: bob.stable_id, team_id: bob.team_id }]);
    // Upstream's tests assert only the Python envelope's plaintext; this is what its Go client sealed.
    expect({ subject: opened.inner.subject, body: opened.inner.body }).toEqual({ subject: 'go fixture subject', body: 'go fixture body' });
  });

  it('the sender copy decrypts for alice to byte-identical plaintext', () => {
    for (const made of [vector.python_mail_envelope, vector.go_mail_envelope]) {
      const envelope = parseEnvelope(made);
      const forBob = openEnvelope(envelope, reader(bob));
      const forAlice = openEnvelope(envelope, reader(alice));
      expect(forAlice.wrapPurpose).toBe('sender_copy');
      expect(forAlice.inner).toEqual(forBob.inner);
    }
  });

  it('refuses anyone else as not a recipient', () => {
    const stranger: WrapReader = {
      did: bob.did,
      stableId: bob.stable_id,
      address: bob.address,
      key: agreementFromPrivateKey(generateX25519KeyPair().privateKey),
    };
    expect(() => openEnvelope(parseEnvelope(vector.python_mail_envelope), stranger)).toThrow(NotARecipientError);
    // bob's key under another identity does not select bob's wrap either.
    expect(() => openEnvelope(parseEnvelope(vector.python_mail_envelope), { ...reader(bob), did: alice.did })).toThrow(NotARecipientError);
  });
});
