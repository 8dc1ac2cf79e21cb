/**
 * The refusals of the end-to-end encryption core, one class per situation, so callers (the
 * ingestion route, the reader, the tests) tell them apart by type rather than by message text.
 *
 * Each carries a `category` from the metadata-only vocabulary of upstream's
 * e2e-operational-metadata.md (verification and decryption error categories): the one thing about
 * a refusal that may be logged, counted or shown to another node. Messages name fields and never
 * quote decrypted content, since a refusal can be logged.
 */

export type E2eeErrorCategory =
  | 'malformed_envelope'
  | 'unsupported_version'
  | 'unsupported_suite'
  | 'policy_mismatch'
  | 'stale_envelope'
  | 'binding_mismatch'
  | 'invalid_signature'
  | 'hash_mismatch'
  | 'bad_key_wrap'
  | 'not_a_recipient'
  | 'malformed_ciphertext'
  | 'inner_header_mismatch'
  | 'invalid_key_assertion';

export abstract class E2eeError extends Error {
  abstract readonly category: E2eeErrorCategory;
}

/** A field is missing, of the wrong type, or not decodable (bad base64, wrong length). */
export class MalformedEnvelopeError extends E2eeError {
  readonly category = 'malformed_envelope';
  override readonly name = 'MalformedEnvelopeError';
}

/** `message_version`, `envelope_type`, `inner_version` or `kind` is not one this node speaks. */
export class UnsupportedEnvelopeVersionError extends E2eeError {
  readonly category = 'unsupported_version';
  override readonly name = 'UnsupportedEnvelopeVersionError';
}

/** The crypto suite or a key wrap's algorithm is not the contract's one suite: a downgrade attempt or a newer peer. */
export class UnsupportedSuiteError extends E2eeError {
  readonly category = 'unsupported_suite';
  override readonly name = 'UnsupportedSuiteError';
}

/** `policy` does not say `requires_e2ee: true, legacy_plaintext_allowed: false`. */
export class EnvelopePolicyError extends E2eeError {
  readonly category = 'policy_mismatch';
  override readonly name = 'EnvelopePolicyError';
}

/** Outside the ingestion window: expired, created too far ahead, or an `expires_at` beyond five minutes. */
export class StaleEnvelopeError extends E2eeError {
  readonly category = 'stale_envelope';
  override readonly name = 'StaleEnvelopeError';
}

/** The envelope names other parties than the route says: sender, recipients, ids, wraps that do not line up. */
export class EnvelopeBindingError extends E2eeError {
  readonly category = 'binding_mismatch';
  override readonly name = 'EnvelopeBindingError';
}

/** The sender's Ed25519 signature over the normalised envelope does not verify. */
export class EnvelopeSignatureError extends E2eeError {
  readonly category = 'invalid_signature';
  override readonly name = 'EnvelopeSignatureError';
}

/** `ciphertext_hash`, `ciphertext_size` or `key_wraps_hash` disagrees with the bytes sent. */
export class EnvelopeHashMismatchError extends E2eeError {
  readonly category = 'hash_mismatch';
  override readonly name = 'EnvelopeHashMismatchError';
}

/** A key wrap whose `wrap_id` does not match its binding, or whose HPKE ciphertext does not open. */
export class KeyWrapError extends E2eeError {
  readonly category = 'bad_key_wrap';
  override readonly name = 'KeyWrapError';
}

/** No key wrap is addressed to this identity and key: reveals nothing beyond the visible metadata. */
export class NotARecipientError extends E2eeError {
  readonly category = 'not_a_recipient';
  override readonly name = 'NotARecipientError';
}

/** The content does not authenticate under the unwrapped key and the envelope's associated data, or is not JSON. */
export class ContentDecryptionError extends E2eeError {
  readonly category = 'malformed_ciphertext';
  override readonly name = 'ContentDecryptionError';
}

/** The decrypted header disagrees with the signed outer envelope or with `inner_header_hash`. */
export class InnerHeaderMismatchError extends E2eeError {
  readonly category = 'inner_header_mismatch';
  override readonly name = 'InnerHeaderMismatchError';
}

/** An `aweb-e2ee-key-v1` assertion that is malformed, bound to another identity, outside its validity, or badly signed. */
export class KeyAssertionError extends E2eeError {
  readonly category = 'invalid_key_assertion';
  override readonly name = 'KeyAssertionError';
}
