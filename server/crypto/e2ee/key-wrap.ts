/**
 * Key wraps (upstream's e2e-messaging-contract.md, "Key-Wrap Binding"): the message's content key
 * sealed with HPKE to one recipient key, under an `info` that names the message, both parties,
 * both keys, the wrap's purpose and the suite. A wrap lifted into another message, or re-addressed,
 * opens under a different info and fails; `wrap_id` (the hash of that binding) lets a reader refuse
 * it before trying.
 *
 * Every message has one `delivery` wrap per recipient and one `sender_copy` wrap to the sender's
 * own key, so the sender's archive decrypts to the same bytes the recipient reads.
 */
import { canonicalJsonBytes } from '../canonical-json.ts';
import { contractHash, decodeRaw, encodeRaw } from './encoding.ts';
import { E2EE_SUITE, KEY_WRAP_ALGORITHM, type E2eeEnvelope, type IdentityRef, type KeyWrap, type SenderRef, type WrapPurpose } from './envelope.ts';
import { KeyWrapError, NotARecipientError, UnsupportedSuiteError } from './errors.ts';
import { HPKE_X25519_SHA256_AES256GCM, setupBaseRecipient, setupBaseSender } from './hpke.ts';
import { encryptionKeyId } from './key-assertion.ts';
import type { X25519Agreement } from './x25519.ts';
import { CONTENT_KEY_LENGTH } from './content-cipher.ts';

export const WRAP_VERSION = 'aweb-e2ee-wrap-v1';
const INFO_PREFIX = Buffer.from('aweb-e2ee-v2 key-wrap\n');

/** Who a wrap is for: an identity and the id of the key it is sealed to. */
export interface WrapRecipient extends IdentityRef {
  encryption_key_id: string;
}

export interface WrapBinding {
  messageId: string;
  conversationId: string;
  sender: SenderRef;
  recipient: WrapRecipient;
  purpose: WrapPurpose;
}

/** The canonical binding object; `recipient_did` is always present (as upstream writes it), the stable ids and address when known. */
function bindingBytes(binding: WrapBinding): Buffer {
  return canonicalJsonBytes({
    version: WRAP_VERSION,
    message_id: binding.messageId,
    conversation_id: binding.conversationId,
    recipient_did: binding.recipient.did ?? '',
    recipient_encryption_key_id: binding.recipient.encryption_key_id,
    sender_did: binding.sender.did,
    sender_encryption_key_id: binding.sender.encryption_key_id,
    wrap_purpose: binding.purpose,
    suite: E2EE_SUITE,
    recipient_stable_id: binding.recipient.stable_id || undefined,
    recipient_address: binding.recipient.address || undefined,
    sender_stable_id: binding.sender.stable_id || undefined,
  });
}

export function wrapId(binding: WrapBinding): string {
  return contractHash(bindingBytes(binding));
}

/** Seals `contentKey` to `recipientPublicKey` (raw X25519) under the binding. */
export function sealKeyWrap(contentKey: Uint8Array, binding: WrapBinding, recipientPublicKey: Uint8Array): KeyWrap {
  const bound = bindingBytes(binding);
  const { enc, context } = setupBaseSender(HPKE_X25519_SHA256_AES256GCM, recipientPublicKey, Buffer.concat([INFO_PREFIX, bound]));
  const { recipient, sender } = binding;
  return {
    wrap_id: contractHash(bound),
    ...(recipient.stable_id ? { recipient_stable_id: recipient.stable_id } : {}),
    ...(recipient.did ? { recipient_did: recipient.did } : {}),
    ...(recipient.address ? { recipient_address: recipient.address } : {}),
    recipient_encryption_key_id: recipient.encryption_key_id,
    sender_encryption_key_id: sender.encryption_key_id,
    sender_did: sender.did,
    ...(sender.stable_id ? { sender_stable_id: sender.stable_id } : {}),
    wrap_purpose: binding.purpose,
    algorithm: KEY_WRAP_ALGORITHM,
    encapsulated_key: encodeRaw(enc),
    wrapped_cek: encodeRaw(context.seal(Buffer.alloc(0), contentKey)),
  };
}

/** The identity reading a message, and its key (kept in custody behind `key`). */
export interface WrapReader {
  did: string;
  stableId?: string | undefined;
  address?: string | undefined;
  key: X25519Agreement;
}

/** A wrap field names the reader when it is absent or equal to the reader's own value (upstream's rule). */
function names(wrapValue: string | undefined, own: string | undefined): boolean {
  return wrapValue === undefined || (own !== undefined && own !== '' && wrapValue === own);
}

/**
 * The first wrap sealed to the reader's key whose recipient fields name the reader. The key id,
 * not trying every key, picks the wrap: a reader with archived keys passes the one the wrap names.
 */
export function selectKeyWrap(envelope: E2eeEnvelope, reader: WrapReader): KeyWrap {
  const keyId = encryptionKeyId(reader.key.publicKey);
  const wrap = envelope.key_wraps.find(
    (w) =>
      w.recipient_encryption_key_id === keyId &&
      names(w.recipient_did, reader.did) &&
      names(w.recipient_stable_id, reader.stableId) &&
      names(w.recipient_address, reader.address),
  );
  if (!wrap) throw new NotARecipientError('not a recipient');
  return wrap;
}

/** Recomputes the wrap's binding from the signed envelope, checks `wrap_id`, and opens the content key. */
export function openKeyWrap(envelope: E2eeEnvelope, wrap: KeyWrap, reader: WrapReader): Buffer {
  if (wrap.algorithm !== KEY_WRAP_ALGORITHM) throw new UnsupportedSuiteError('unsupported key wrap algorithm');
  const bound = bindingBytes({
    messageId: envelope.message_id,
    conversationId: envelope.conversation_id,
    sender: envelope.from,
    recipient: {
      ...(wrap.recipient_address ? { address: wrap.recipient_address } : {}),
      ...(wrap.recipient_did ? { did: wrap.recipient_did } : {}),
      ...(wrap.recipient_stable_id ? { stable_id: wrap.recipient_stable_id } : {}),
      encryption_key_id: wrap.recipient_encryption_key_id,
    },
    purpose: wrap.wrap_purpose,
  });
  if (contractHash(bound) !== wrap.wrap_id) throw new KeyWrapError('key wrap binding does not match its wrap_id');
  const enc = decodeRaw(wrap.encapsulated_key);
  const sealed = decodeRaw(wrap.wrapped_cek);
  if (!enc || !sealed) throw new KeyWrapError('key wrap is not base64');
  let contentKey: Buffer;
  try {
    contentKey = setupBaseRecipient(HPKE_X25519_SHA256_AES256GCM, enc, reader.key, Buffer.concat([INFO_PREFIX, bound])).open(Buffer.alloc(0), sealed);
  } catch {
    throw new KeyWrapError('key wrap does not open with this key');
  }
  if (contentKey.length !== CONTENT_KEY_LENGTH) throw new KeyWrapError('wrapped content key is not 32 bytes');
  return contentKey;
}
