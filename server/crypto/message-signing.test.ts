import { describe, it, expect } from 'vitest';
import { didKeyFromPublicKey } from './did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from './ed25519.ts';
import { toBase64Padded, toBase64Unpadded } from './encoding.ts';
import { buildMessageEnvelope, messageSignedPayload, messageSigningBytes, verifyMessageSignature, type MessageFields } from './message-signing.ts';

const SENDER = privateKeyFromSeed(Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex'));
const SENDER_DID = didKeyFromPublicKey(rawPublicKey(SENDER));
const OTHER_DID = didKeyFromPublicKey(rawPublicKey(privateKeyFromSeed(new Uint8Array(32).fill(5))));

const BASE: MessageFields = {
  body: 'hi',
  from: 'acme.com/alice',
  from_did: SENDER_DID,
  subject: '',
  timestamp: '2026-05-01T10:00:00Z',
  to: 'acme.com/bob',
  to_did: '',
  type: 'chat',
};

// Payload and signature from upstream's shared trust vectors (test-vectors/trust/crypto-sig-v1.json).
const UPSTREAM_PAYLOAD =
  '{"body":"world","from":"alice","from_did":"did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd","from_stable_id":"did:aw:2CiZ88hVF4JuQim8nnSuyeiV2HF2","message_id":"msg-001","subject":"hello","timestamp":"2025-01-01T00:00:00Z","to":"bob","to_did":"","type":"mail"}';
const UPSTREAM_SIGNATURE = '37ZbXgoIMkmO4dsFhe720VQQojGuG6UmB5jfbctiNZOC9+ibj23Bbx8GxIlfLBJ75xGkeuJOUjrbm0BAlAFvCQ';

describe('buildMessageEnvelope', () => {
  it('always carries the eight base fields, even when empty', () => {
    expect(messageSignedPayload(buildMessageEnvelope(BASE))).toBe(
      `{"body":"hi","from":"acme.com/alice","from_did":"${SENDER_DID}","subject":"","timestamp":"2026-05-01T10:00:00Z","to":"acme.com/bob","to_did":"","type":"chat"}`,
    );
  });

  it('omits empty optional strings and false flags', () => {
    const envelope = buildMessageEnvelope({
      ...BASE,
      from_stable_id: '',
      to_stable_id: null,
      message_id: undefined,
      priority: '',
      reply_to: '',
      hang_on: false,
      sender_leaving: false,
      wait_seconds: null,
    });
    expect(Object.keys(envelope).sort()).toEqual(['body', 'from', 'from_did', 'subject', 'timestamp', 'to', 'to_did', 'type']);
  });

  it('includes set optional fields with their JSON types', () => {
    const envelope = buildMessageEnvelope({
      ...BASE,
      from_stable_id: 'did:svc:2CiZ88hVF4JuQim8nnSuyeiV2HF2',
      to_stable_id: 'did:svc:WsPUbr9PzoJKNvBcQ5xRys6wJS7',
      message_id: '8b1c2c69-7c2a-4fbb-9f4a-3dfb7d7a26c0',
      priority: 'high',
      reply_to: '11111111-2222-4333-8444-555555555555',
      wait_seconds: 0,
      hang_on: true,
      sender_leaving: true,
    });
    const text = messageSigningBytes(envelope).toString('utf8');
    expect(text).toContain(
      '"hang_on":true,"message_id":"8b1c2c69-7c2a-4fbb-9f4a-3dfb7d7a26c0","priority":"high","reply_to":"11111111-2222-4333-8444-555555555555","sender_leaving":true',
    );
    expect(text).toContain('"wait_seconds":0}');
    expect(Object.keys(JSON.parse(text))).toHaveLength(16);
  });

  it('refuses a fractional wait', () => {
    expect(() => buildMessageEnvelope({ ...BASE, wait_seconds: 1.5 })).toThrow(RangeError);
  });

  it('signs literal UTF-8 and escapes control characters', () => {
    const bytes = messageSigningBytes(buildMessageEnvelope({ ...BASE, body: 'café <b>&\n\t"x"' }));
    expect(bytes.toString('utf8')).toContain('"body":"café <b>&\\n\\t\\"x\\""');
    expect(bytes.includes(Buffer.from('café', 'utf8'))).toBe(true);
  });
});

describe('verifyMessageSignature', () => {
  const signed = (() => {
    const payload = messageSignedPayload(buildMessageEnvelope(BASE));
    return { signed_payload: payload, signature: toBase64Unpadded(signBytes(SENDER, Buffer.from(payload))), from_did: SENDER_DID };
  })();

  it('verifies our own signature and upstream bytes', () => {
    expect(verifyMessageSignature(signed)).toBe('verified');
    expect(verifyMessageSignature({ ...signed, signing_key_id: SENDER_DID })).toBe('verified');
    expect(verifyMessageSignature({ ...signed, signing_key_id: '' })).toBe('verified');
    expect(verifyMessageSignature({ ...signed, signing_key_id: null })).toBe('verified');
    expect(verifyMessageSignature({ signed_payload: UPSTREAM_PAYLOAD, signature: UPSTREAM_SIGNATURE, from_did: SENDER_DID })).toBe('verified');
  });

  it('is unverified when there is nothing to check', () => {
    expect(verifyMessageSignature({ ...signed, signature: '' })).toBe('unverified');
    expect(verifyMessageSignature({ ...signed, from_did: null })).toBe('unverified');
    expect(verifyMessageSignature({ ...signed, signed_payload: undefined })).toBe('unverified');
    expect(verifyMessageSignature({ ...signed, from_did: 'did:svc:2CiZ88hVF4JuQim8nnSuyeiV2HF2' })).toBe('unverified');
  });

  it('fails on a mismatched signing key id', () => {
    expect(verifyMessageSignature({ ...signed, signing_key_id: OTHER_DID })).toBe('failed');
    expect(verifyMessageSignature({ ...signed, signing_key_id: 'did:key:z6MismatchedSigningKey' })).toBe('failed');
  });

  it('fails on malformed keys and signatures', () => {
    expect(verifyMessageSignature({ ...signed, from_did: 'did:key:zBadKey' })).toBe('failed');
    expect(verifyMessageSignature({ ...signed, signature: 'not-base64!' })).toBe('failed');
    expect(verifyMessageSignature({ ...signed, signature: toBase64Padded(Buffer.from(signed.signature, 'base64')) })).toBe('failed');
    expect(verifyMessageSignature({ ...signed, signature: signed.signature.slice(0, -4) })).toBe('failed');
  });

  it('fails when the bytes or the signer change', () => {
    expect(verifyMessageSignature({ ...signed, signed_payload: signed.signed_payload.replace('"hi"', '"hi!"') })).toBe('failed');
    expect(verifyMessageSignature({ ...signed, from_did: OTHER_DID })).toBe('failed');
    expect(verifyMessageSignature({ signed_payload: UPSTREAM_PAYLOAD, signature: `${UPSTREAM_SIGNATURE.slice(0, -1)}A`, from_did: SENDER_DID })).toBe('failed');
  });
});
