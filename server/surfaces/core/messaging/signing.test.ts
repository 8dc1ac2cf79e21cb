import { describe, expect, it } from 'vitest';
import { buildMessageEnvelope, messageSigningBytes } from '../../../crypto/message-signing.ts';
import { testKey } from '../../../../test/support/keys.ts';
import { signatureStatus } from './signing.ts';

describe('signatureStatus', () => {
  const key = testKey();
  const payload = messageSigningBytes(
    buildMessageEnvelope({ type: 'mail', body: 'hi', from: 'a', from_did: key.didKey, subject: '', timestamp: '2026-11-21T00:00:00Z', to: 'b', to_did: '' }),
  );
  const stored = { from_did: key.didKey, signature: key.sign(payload), signed_payload: payload.toString('utf8') };

  it('says verified, and keeps saying it for the same content', () => {
    expect(signatureStatus(stored)).toBe('verified');
    expect(signatureStatus({ ...stored })).toBe('verified');
  });

  it('judges other content afresh: an altered payload fails, a missing signature is unverified', () => {
    expect(signatureStatus({ ...stored, signed_payload: stored.signed_payload.replace('hi', 'ho') })).toBe('failed');
    expect(signatureStatus({ ...stored, from_did: testKey().didKey })).toBe('failed');
    expect(signatureStatus({ ...stored, signature: '' })).toBe('unverified');
  });
});
