/**
 * What a receiving node checks of a delivered message's signature (wire.ts): the sending node's
 * own envelope byte for byte, a client's envelope field by field with the latitude the signing
 * rules give it, the signature itself, and the recipient keys a signature names.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FEDERATION_VERSION, type FederatedChat, type FederatedMail, type FederatedMessage } from '../../contract/core/federation.ts';
import { canonicalJsonBytes } from '../crypto/canonical-json.ts';
import { testKey, type TestKey } from '../../test/support/keys.ts';
import { envelopeBytes, recipientProblem, signatureProblem } from './wire.ts';

const ann = testKey();

type Unsigned<M> = Omit<M, 'signature' | 'signed_payload'>;

const mail = (fields: Partial<FederatedMail> = {}): Unsigned<FederatedMail> => ({
  v: FEDERATION_VERSION,
  kind: 'mail',
  message_id: randomUUID(),
  from: 'a.test/ann',
  from_did: ann.didKey,
  from_stable_id: null,
  to: 'b.test/bob',
  subject: 'Plans',
  body: 'See you at ten.',
  priority: 'normal',
  timestamp: '2026-03-01T10:00:00Z',
  ...fields,
});

const chat = (fields: Partial<FederatedChat> = {}): Unsigned<FederatedChat> => ({
  v: FEDERATION_VERSION,
  kind: 'chat',
  message_id: randomUUID(),
  from: 'a.test/ann',
  from_did: ann.didKey,
  from_stable_id: null,
  to: 'b.test/bob',
  body: 'still there?',
  timestamp: '2026-03-01T10:00:00Z',
  reply_to: null,
  wait_seconds: 0,
  hang_on: false,
  sender_leaving: false,
  ...fields,
});

/** `message` signed by `key` over its node's envelope, or over `envelope` (a client's own) when given. */
function signed<M extends FederatedMessage>(message: Unsigned<M>, envelope?: Record<string, unknown>, key: TestKey = ann): M {
  const bytes = envelope === undefined ? envelopeBytes(message as M) : canonicalJsonBytes(envelope);
  return { ...message, signature: key.sign(bytes), signed_payload: bytes.toString('utf8') } as M;
}

/** The envelope a client signs for `message`, before the latitude a test takes with it. */
const clientEnvelope = (message: Unsigned<FederatedMail>): Record<string, unknown> => ({
  type: 'mail',
  body: message.body,
  from: message.from,
  from_did: message.from_did,
  message_id: message.message_id,
  subject: message.subject,
  timestamp: message.timestamp,
  to: message.to,
  to_did: '',
});

describe('signatureProblem', () => {
  it("accepts the sending node's own envelope, with or without a thread (which travels outside it)", () => {
    expect(signatureProblem(signed(mail()))).toBeNull();
    expect(signatureProblem({ ...signed(mail()), thread_id: randomUUID() })).toBeNull();
    expect(signatureProblem(signed(chat({ reply_to: randomUUID(), wait_seconds: 30, hang_on: true })))).toBeNull();
  });

  it("accepts a client's envelope that says the same in its own way: normal priority left out, the recipient's keys named, the domain's case", () => {
    const message = mail();
    const bob = testKey();
    expect(signatureProblem(signed(message, { ...clientEnvelope(message), to: 'B.Test/bob', to_did: bob.didKey, to_stable_id: 'did:svc:zbob' }))).toBeNull();
    const urgent = mail({ priority: 'urgent', from_stable_id: 'did:svc:zann' });
    expect(signatureProblem(signed(urgent, { ...clientEnvelope(urgent), priority: 'urgent' }))).toBeNull();
  });

  it('names the delivered field the signed payload does not say', () => {
    const message = mail({ from_stable_id: 'did:svc:zann' });
    const envelope = clientEnvelope(message);
    const cases: [Record<string, unknown>, Partial<FederatedMail>, string][] = [
      [envelope, { body: 'See you at eleven.' }, 'body'],
      [envelope, { from: 'a.test/eve' }, 'from'],
      [envelope, { timestamp: '2026-03-01T10:00:01Z' }, 'timestamp'],
      [envelope, { message_id: randomUUID() }, 'message_id'],
      [envelope, { to: 'b.test/carol' }, 'to'],
      [envelope, { subject: 'Other plans' }, 'subject'],
      [envelope, { priority: 'high' }, 'priority'],
      [{ ...envelope, from_stable_id: 'did:svc:zeve' }, {}, 'from_stable_id'],
      [{ ...envelope, type: 'chat' }, {}, 'type'],
    ];
    for (const [signedEnvelope, delivered, field] of cases) {
      const forged = { ...signed(message, signedEnvelope), ...delivered };
      expect(signatureProblem(forged), field).toBe(`signed_payload is not the canonical envelope of the delivered fields (${field} differs)`);
    }
    const talk = chat({ hang_on: true });
    const talkEnvelope = JSON.parse(envelopeBytes(signed(talk)).toString('utf8')) as Record<string, unknown>;
    expect(signatureProblem({ ...signed(talk, talkEnvelope), hang_on: false })).toMatch(/\(hang_on differs\)$/);
    expect(signatureProblem({ ...signed(talk, talkEnvelope), wait_seconds: null })).toMatch(/\(wait_seconds differs\)$/);
    expect(signatureProblem(signed(talk, { ...talkEnvelope, subject: 'hi' }))).toMatch(/\(subject differs\)$/);
  });

  it('refuses a payload that is not a JSON object, and a signature that does not verify with from_did', () => {
    const message = signed(mail());
    expect(signatureProblem({ ...message, signed_payload: 'not json' })).toBe(
      'signed_payload is not the canonical envelope of the delivered fields (not a JSON object)',
    );
    expect(signatureProblem({ ...message, signed_payload: '[1]' })).toBe(
      'signed_payload is not the canonical envelope of the delivered fields (not a JSON object)',
    );
    const byAnother = signed(mail(), undefined, testKey());
    expect(signatureProblem(byAnother)).toBe('the signature does not verify with from_did (failed)');
    const noKey = mail({ from_did: 'did:web:a.test' });
    expect(signatureProblem(signed(noKey))).toBe('the signature does not verify with from_did (unverified)');
  });
});

describe('recipientProblem', () => {
  const bob = { did_key: testKey().didKey, did_aw: 'did:svc:zbob' };
  const naming = (fields: Record<string, unknown>) => {
    const message = mail();
    return signed(message, { ...clientEnvelope(message), ...fields });
  };

  it("accepts a signature that names no recipient key, or this recipient's", () => {
    expect(recipientProblem(signed(mail()), bob)).toBeNull();
    expect(recipientProblem(naming({ to_did: bob.did_key }), bob)).toBeNull();
    expect(recipientProblem(naming({ to_did: bob.did_aw, to_stable_id: bob.did_aw }), bob)).toBeNull();
    expect(recipientProblem({ ...signed(mail()), signed_payload: 'not json' }, bob)).toBeNull();
  });

  it('refuses a signature meant for another identity', () => {
    expect(recipientProblem(naming({ to_did: testKey().didKey }), bob)).toBe('the signed recipient key (to_did) is not the key of b.test/bob');
    expect(recipientProblem(naming({ to_stable_id: 'did:svc:zcarol' }), bob)).toBe('the signed recipient (to_stable_id) is not b.test/bob');
    expect(recipientProblem(naming({ to_stable_id: 'did:svc:zbob' }), { ...bob, did_aw: null })).toBe('the signed recipient (to_stable_id) is not b.test/bob');
  });
});
