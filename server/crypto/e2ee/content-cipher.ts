/**
 * The content encryption of an E2EE v2 message: AES-256-GCM under a fresh 32-byte content key
 * (`cek`) per message, a 12-byte random nonce, the envelope's associated data, and the 16-byte tag
 * appended to the ciphertext (what `ciphertext_hash` and `ciphertext_size` cover).
 *
 * One key encrypts one message, so a random nonce cannot repeat under a key; the all-zero nonce is
 * still refused both ways, as the contract asks, and callers never choose a nonce.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { AEAD_TAG_LENGTH, CONTENT_NONCE_LENGTH } from './envelope.ts';
import { ContentDecryptionError, MalformedEnvelopeError } from './errors.ts';

export const CONTENT_KEY_LENGTH = 32;

export function newContentKey(): Buffer {
  return randomBytes(CONTENT_KEY_LENGTH);
}

export function newContentNonce(): Buffer {
  for (;;) {
    const nonce = randomBytes(CONTENT_NONCE_LENGTH);
    if (!isZero(nonce)) return nonce;
  }
}

export function isZero(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0);
}

export function sealContent(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, associatedData: Uint8Array): Buffer {
  if (key.length !== CONTENT_KEY_LENGTH || nonce.length !== CONTENT_NONCE_LENGTH || isZero(nonce))
    throw new RangeError('content key or nonce of the wrong shape');
  // A KeyObject, not the raw bytes, which node would check and convert at a cost greater than the cipher's on a message this size.
  const cipher = createCipheriv('aes-256-gcm', createSecretKey(key), nonce, { authTagLength: AEAD_TAG_LENGTH });
  cipher.setAAD(associatedData);
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/** Throws ContentDecryptionError when the ciphertext does not authenticate under this key and associated data. */
export function openContent(key: Uint8Array, nonce: Uint8Array, ciphertext: Uint8Array, associatedData: Uint8Array): Buffer {
  if (nonce.length !== CONTENT_NONCE_LENGTH || isZero(nonce)) throw new MalformedEnvelopeError('crypto.content_nonce must be 12 bytes and not all zero');
  if (ciphertext.length < AEAD_TAG_LENGTH) throw new ContentDecryptionError('ciphertext is shorter than its tag');
  const decipher = createDecipheriv('aes-256-gcm', createSecretKey(key), nonce, { authTagLength: AEAD_TAG_LENGTH });
  decipher.setAAD(associatedData);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - AEAD_TAG_LENGTH));
  try {
    return Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - AEAD_TAG_LENGTH)), decipher.final()]);
  } catch {
    throw new ContentDecryptionError('content does not authenticate under the wrapped key and the envelope');
  }
}
