/**
 * Reading an E2EE v2 message: what a recipient (or the sender, through its `sender_copy` wrap)
 * does before any of the content is shown, indexed or handed to an agent. Every check fails
 * closed with its own error, and nothing decrypted leaves this function unless all passed.
 *
 * The order is upstream's readers' (its Go client's DecryptE2EEMessage): the signature first, then
 * the hashes the signature covers, then the wrap, the content, and the inner header. Freshness is
 * not checked here: it is an ingestion rule, and stored mail stays readable however old.
 */
import { publicKeyFromDidKey } from '../did-key.ts';
import { verifyBytes } from '../ed25519.ts';
import { contractHash, decodeRaw } from './encoding.ts';
import { E2EE_SUITE, envelopeAssociatedData, envelopeSigningBytes, keyWrapsHash, type E2eeEnvelope, type WrapPurpose } from './envelope.ts';
import { EnvelopeBindingError, EnvelopeHashMismatchError, EnvelopeSignatureError, MalformedEnvelopeError, UnsupportedSuiteError } from './errors.ts';
import { checkInnerHeader, parseInnerPayload, type InnerPayload } from './inner-payload.ts';
import { openContent } from './content-cipher.ts';
import { openKeyWrap, selectKeyWrap, type WrapReader } from './key-wrap.ts';

/**
 * The checks that need no key: the suite, the sender's signature over the normalised envelope, and
 * the ciphertext hash, size and key-wraps hash the signature commits to. Run by every reader, and
 * by ingestion before it stores anything.
 */
export function checkEnvelopeIntegrity(envelope: E2eeEnvelope): Buffer {
  if (envelope.crypto.suite !== E2EE_SUITE) throw new UnsupportedSuiteError('unsupported crypto suite');
  if (envelope.signing_key_id !== envelope.from.did) throw new EnvelopeBindingError('signing_key_id does not match from.did');
  const signer = publicKeyFromDidKey(envelope.from.did);
  if (!signer) throw new EnvelopeBindingError('from.did is not an Ed25519 did:key');
  const signature = decodeRaw(envelope.signature);
  if (!signature || !verifyBytes(signer, envelopeSigningBytes(envelope), signature)) throw new EnvelopeSignatureError('invalid envelope signature');
  const ciphertext = decodeRaw(envelope.ciphertext);
  if (!ciphertext) throw new MalformedEnvelopeError('ciphertext is not base64');
  if (contractHash(ciphertext) !== envelope.crypto.ciphertext_hash) throw new EnvelopeHashMismatchError('ciphertext_hash does not match the ciphertext');
  if (ciphertext.length !== envelope.crypto.ciphertext_size) throw new EnvelopeHashMismatchError('ciphertext_size does not match the ciphertext');
  if (keyWrapsHash(envelope.key_wraps) !== envelope.crypto.key_wraps_hash) throw new EnvelopeHashMismatchError('key_wraps_hash does not match the key wraps');
  return ciphertext;
}

export interface OpenedMessage {
  inner: InnerPayload;
  /** `sender_copy` when the reader opened its own archive copy. */
  wrapPurpose: WrapPurpose;
  encryptionKeyId: string;
}

/** Decrypts an envelope for `reader`; throws an E2eeError for every way it can fail. */
export function openEnvelope(envelope: E2eeEnvelope, reader: WrapReader): OpenedMessage {
  const ciphertext = checkEnvelopeIntegrity(envelope);
  const wrap = selectKeyWrap(envelope, reader);
  const contentKey = openKeyWrap(envelope, wrap, reader);
  const nonce = decodeRaw(envelope.crypto.content_nonce);
  if (!nonce) throw new MalformedEnvelopeError('crypto.content_nonce is not base64');
  const plaintext = openContent(contentKey, nonce, ciphertext, envelopeAssociatedData(envelope));
  const inner = parseInnerPayload(plaintext);
  checkInnerHeader(envelope, inner);
  return { inner, wrapPurpose: wrap.wrap_purpose, encryptionKeyId: wrap.recipient_encryption_key_id };
}
