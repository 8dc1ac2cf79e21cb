import { describe, expect, it } from 'vitest';
import { encryptionBadge, offersPlaintext, PLAINTEXT_WARNING, threadEncryptionBadge } from './end-to-end.ts';

describe('end-to-end encryption words', () => {
  it('locks an encrypted message and marks a plaintext one in words, not colour alone', () => {
    expect(encryptionBadge({ end_to_end: true })).toMatchObject({ text: 'End-to-end encrypted', tone: 'ok', locked: true });
    expect(encryptionBadge({ end_to_end: false })).toMatchObject({ text: 'Not end-to-end encrypted', tone: 'warn', locked: false });
    expect(encryptionBadge({ end_to_end: false }).hint).toMatch(/plaintext/);
  });

  it('locks a thread only when every message of it is encrypted, and says how much is not', () => {
    const sealed = { end_to_end: true };
    const plain = { end_to_end: false };
    expect(threadEncryptionBadge([sealed, sealed])).toMatchObject({ text: 'End-to-end encrypted', locked: true });
    expect(threadEncryptionBadge([sealed, plain, sealed])).toMatchObject({
      text: 'Not all end-to-end encrypted',
      locked: false,
      hint: 'Not end-to-end encrypted: 1 of this thread’s 3 messages.',
    });
    expect(threadEncryptionBadge([plain, plain])).toMatchObject({ text: 'Not end-to-end encrypted', locked: false });
  });

  it('offers plaintext only for a refusal naming a recipient without a key, to that one recipient', () => {
    expect(offersPlaintext({ code: 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING', recipients: 1 })).toBe(true);
    expect(offersPlaintext({ code: 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING', recipients: 2 })).toBe(false);
    expect(offersPlaintext({ code: 'SVC_ERR_E2EE_PLAINTEXT_REFUSED', recipients: 1 })).toBe(false);
    expect(offersPlaintext({ code: 'SVC_ERR_E2EE_REQUIRED', recipients: 1 })).toBe(false);
    expect(offersPlaintext({ code: null, recipients: 1 })).toBe(false);
  });

  it('warns in upstream’s words', () => {
    expect(PLAINTEXT_WARNING).toBe('Sending as legacy plaintext. Subject/body may be stored and visible to the service.');
  });
});
