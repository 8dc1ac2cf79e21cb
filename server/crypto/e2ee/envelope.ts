/**
 * The E2EE v2 outer envelope (upstream's e2e-messaging-contract.md, "Outer Encrypted Envelope"):
 * its shape, the reader that turns received JSON into the normalised envelope, and the three
 * canonical forms computed over it.
 *
 * Upstream never signs or hashes the JSON it received: its Go client and its Python server both
 * rebuild a normalised map first (strings trimmed, optional identity and routing fields present
 * only when non-empty, unknown fields dropped) and canonicalise that. The reader here does the same
 * normalisation once, and everything downstream (signature, associated data, storage, forwarding)
 * works on its result. Signing the received JSON instead would refuse upstream's own Python
 * envelopes, which carry `"delivery_origin": ""` that their signature does not cover.
 */
import { canonicalJsonBytes } from '../canonical-json.ts';
import { contractHash, decodeRaw, isContractHash } from './encoding.ts';
import { MalformedEnvelopeError, UnsupportedEnvelopeVersionError } from './errors.ts';
import { parseKeyAssertion, type EncryptionKeyAssertion } from './key-assertion.ts';

export const MESSAGE_VERSION = 2;
export const ENVELOPE_TYPE = 'aweb.e2ee.message';
export const E2EE_SUITE = 'aweb-e2ee-v2.x25519-hkdf-sha256-aes256gcm-ed25519';
export const KEY_WRAP_ALGORITHM = 'hpke-base-x25519-hkdf-sha256-aes256gcm';
/** The ingestion window: `expires_at` at most this long after `created_at`, and the clock skew allowed. */
export const INGESTION_WINDOW_MS = 5 * 60 * 1000;
export const CONTENT_NONCE_LENGTH = 12;
export const AEAD_TAG_LENGTH = 16;
/** A wrapped 32-byte content key with its 16-byte tag. */
export const MIN_WRAPPED_CEK_LENGTH = 48;

export type MessageKind = 'mail' | 'chat';
export type WrapPurpose = 'delivery' | 'sender_copy';

/** An identity as the envelope names it; absent fields are omitted, never "". */
export interface IdentityRef {
  address?: string;
  did?: string;
  stable_id?: string;
  team_id?: string;
}

export interface SenderRef extends IdentityRef {
  did: string;
  encryption_key_id: string;
}

export interface RecipientRef extends IdentityRef {
  did: string;
  encryption_key_id: string;
  wrap_id: string;
}

export interface Routing {
  to?: string;
  to_did?: string;
  to_stable_id?: string;
  delivery_origin?: string;
  sender_observed_inbound_mode?: string;
}

export interface EnvelopePolicy {
  requires_e2ee: boolean;
  legacy_plaintext_allowed: boolean;
}

export interface CryptoHeader {
  suite: string;
  content_nonce: string;
  ciphertext_hash: string;
  ciphertext_size: number;
  inner_header_hash: string;
  key_wraps_hash: string;
}

export interface KeyWrap {
  wrap_id: string;
  recipient_stable_id?: string;
  recipient_did?: string;
  recipient_address?: string;
  recipient_encryption_key_id: string;
  sender_encryption_key_id: string;
  sender_did: string;
  sender_stable_id?: string;
  wrap_purpose: WrapPurpose;
  algorithm: string;
  encapsulated_key: string;
  wrapped_cek: string;
}

export interface E2eeEnvelope {
  message_version: typeof MESSAGE_VERSION;
  envelope_type: typeof ENVELOPE_TYPE;
  kind: MessageKind;
  message_id: string;
  conversation_id: string;
  reply_to_message_id?: string;
  created_at: string;
  expires_at: string;
  from: SenderRef;
  /** The sender's own key assertion, carried only by senders without an address, for replies. */
  sender_encryption_key?: EncryptionKeyAssertion;
  recipients: RecipientRef[];
  routing: Routing;
  policy: EnvelopePolicy;
  crypto: CryptoHeader;
  key_wraps: KeyWrap[];
  ciphertext: string;
  signature: string;
  signing_key_id: string;
}

// ------------------------------------------------------------------ reading

type Json = Record<string, unknown>;

function object(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedEnvelopeError(`${path} must be an object`);
  return value as Json;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new MalformedEnvelopeError(`${path} must be an array`);
  return value;
}

/** A string trimmed; absent, null and "" are undefined. */
function optional(record: Json, key: string, path: string): string | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new MalformedEnvelopeError(`${path}.${key} must be a string`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function required(record: Json, key: string, path: string): string {
  const value = optional(record, key, path);
  if (value === undefined) throw new MalformedEnvelopeError(`${path}.${key} is required`);
  return value;
}

function hash(record: Json, key: string, path: string): string {
  const value = required(record, key, path);
  if (!isContractHash(value)) throw new MalformedEnvelopeError(`${path}.${key} must be sha256: and the base64 of 32 bytes`);
  return value;
}

function bytes(record: Json, key: string, path: string, check: (length: number) => boolean, what: string): string {
  const value = required(record, key, path);
  const decoded = decodeRaw(value);
  if (!decoded || !check(decoded.length)) throw new MalformedEnvelopeError(`${path}.${key} must be unpadded base64 of ${what}`);
  return value;
}

/** Copies the named optional fields that are present, in a fixed order. */
function pick<T extends string>(record: Json, keys: readonly T[], path: string): Partial<Record<T, string>> {
  const out: Partial<Record<T, string>> = {};
  for (const key of keys) {
    const value = optional(record, key, path);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

const IDENTITY_FIELDS = ['address', 'stable_id', 'team_id'] as const;

function readSender(value: unknown): SenderRef {
  const record = object(value, 'from');
  return { ...pick(record, IDENTITY_FIELDS, 'from'), did: required(record, 'did', 'from'), encryption_key_id: hash(record, 'encryption_key_id', 'from') };
}

function readRecipient(value: unknown, index: number): RecipientRef {
  const path = `recipients[${index}]`;
  const record = object(value, path);
  return {
    ...pick(record, IDENTITY_FIELDS, path),
    did: required(record, 'did', path),
    encryption_key_id: hash(record, 'encryption_key_id', path),
    wrap_id: hash(record, 'wrap_id', path),
  };
}

function readKeyWrap(value: unknown, index: number): KeyWrap {
  const path = `key_wraps[${index}]`;
  const record = object(value, path);
  const purpose = required(record, 'wrap_purpose', path);
  if (purpose !== 'delivery' && purpose !== 'sender_copy') throw new MalformedEnvelopeError(`${path}.wrap_purpose must be delivery or sender_copy`);
  return {
    wrap_id: hash(record, 'wrap_id', path),
    ...pick(record, ['recipient_stable_id', 'recipient_did', 'recipient_address'], path),
    recipient_encryption_key_id: hash(record, 'recipient_encryption_key_id', path),
    sender_encryption_key_id: hash(record, 'sender_encryption_key_id', path),
    sender_did: required(record, 'sender_did', path),
    ...pick(record, ['sender_stable_id'], path),
    wrap_purpose: purpose,
    algorithm: required(record, 'algorithm', path),
    encapsulated_key: bytes(record, 'encapsulated_key', path, (n) => n === 32, '32 bytes'),
    wrapped_cek: bytes(record, 'wrapped_cek', path, (n) => n >= MIN_WRAPPED_CEK_LENGTH, `at least ${MIN_WRAPPED_CEK_LENGTH} bytes`),
  };
}

function readCrypto(value: unknown): CryptoHeader {
  const record = object(value, 'crypto');
  const size = record.ciphertext_size;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
    throw new MalformedEnvelopeError('crypto.ciphertext_size must be a non-negative integer');
  const nonce = bytes(record, 'content_nonce', 'crypto', (n) => n === CONTENT_NONCE_LENGTH, `${CONTENT_NONCE_LENGTH} bytes`);
  return {
    suite: required(record, 'suite', 'crypto'),
    content_nonce: nonce,
    ciphertext_hash: hash(record, 'ciphertext_hash', 'crypto'),
    ciphertext_size: size,
    inner_header_hash: hash(record, 'inner_header_hash', 'crypto'),
    key_wraps_hash: hash(record, 'key_wraps_hash', 'crypto'),
  };
}

function readPolicy(value: unknown): EnvelopePolicy {
  const record = object(value, 'policy');
  const { requires_e2ee: requires, legacy_plaintext_allowed: legacy } = record;
  if (typeof requires !== 'boolean' || typeof legacy !== 'boolean') throw new MalformedEnvelopeError('policy fields must be booleans');
  return { requires_e2ee: requires, legacy_plaintext_allowed: legacy };
}

/**
 * Reads a received envelope into its normalised form. The version and type come first: a later
 * version may have another shape, and must be refused as unsupported rather than as malformed.
 * Throws MalformedEnvelopeError (naming the field), UnsupportedEnvelopeVersionError, or
 * KeyAssertionError for a malformed embedded sender assertion.
 */
export function parseEnvelope(value: unknown): E2eeEnvelope {
  const record = object(value, 'envelope');
  if (record.message_version !== MESSAGE_VERSION) throw new UnsupportedEnvelopeVersionError('unsupported message_version');
  if (record.envelope_type !== ENVELOPE_TYPE) throw new UnsupportedEnvelopeVersionError('unsupported envelope_type');
  const kind = record.kind;
  if (kind !== 'mail' && kind !== 'chat') throw new UnsupportedEnvelopeVersionError('unsupported envelope kind');
  const reply = optional(record, 'reply_to_message_id', 'envelope');
  const senderKey = record.sender_encryption_key;
  const ciphertext = bytes(record, 'ciphertext', 'envelope', (n) => n >= AEAD_TAG_LENGTH, `at least ${AEAD_TAG_LENGTH} bytes`);
  return {
    message_version: MESSAGE_VERSION,
    envelope_type: ENVELOPE_TYPE,
    kind,
    message_id: required(record, 'message_id', 'envelope'),
    conversation_id: required(record, 'conversation_id', 'envelope'),
    ...(reply === undefined ? {} : { reply_to_message_id: reply }),
    created_at: required(record, 'created_at', 'envelope'),
    expires_at: required(record, 'expires_at', 'envelope'),
    from: readSender(record.from),
    ...(senderKey === undefined || senderKey === null ? {} : { sender_encryption_key: parseKeyAssertion(senderKey) }),
    recipients: array(record.recipients, 'recipients').map(readRecipient),
    routing: pick(object(record.routing ?? {}, 'routing'), ['to', 'to_did', 'to_stable_id', 'delivery_origin', 'sender_observed_inbound_mode'], 'routing'),
    policy: readPolicy(record.policy),
    crypto: readCrypto(record.crypto),
    key_wraps: array(record.key_wraps, 'key_wraps').map(readKeyWrap),
    ciphertext,
    signature: bytes(record, 'signature', 'envelope', (n) => n === 64, '64 bytes'),
    signing_key_id: required(record, 'signing_key_id', 'envelope'),
  };
}

// ------------------------------------------------------------------ canonical forms

/** Everything but the signature, and without what the content's associated data cannot know yet. */
function protectedHeader(envelope: Omit<E2eeEnvelope, 'signature' | 'ciphertext'>, withCiphertextHash: boolean): Json {
  const { ciphertext_hash: ciphertextHash, ...crypto } = envelope.crypto;
  return {
    message_version: envelope.message_version,
    envelope_type: envelope.envelope_type,
    kind: envelope.kind,
    message_id: envelope.message_id,
    conversation_id: envelope.conversation_id,
    reply_to_message_id: envelope.reply_to_message_id,
    created_at: envelope.created_at,
    expires_at: envelope.expires_at,
    from: envelope.from,
    sender_encryption_key: envelope.sender_encryption_key,
    recipients: envelope.recipients,
    routing: envelope.routing,
    policy: envelope.policy,
    crypto: withCiphertextHash ? { ...crypto, ciphertext_hash: ciphertextHash } : crypto,
    key_wraps: envelope.key_wraps,
    signing_key_id: envelope.signing_key_id,
  };
}

/**
 * The content's associated data: the envelope without `signature`, `ciphertext` and
 * `crypto.ciphertext_hash` (which depend on the ciphertext). It binds the routing, recipients,
 * key ids, key wraps, suite, times and policy to the content through the AEAD tag.
 */
export function envelopeAssociatedData(envelope: Omit<E2eeEnvelope, 'signature' | 'ciphertext'>): Buffer {
  return canonicalJsonBytes(protectedHeader(envelope, false));
}

/** What the sender signs: the envelope without `signature`, so also the ciphertext and its hash. */
export function envelopeSigningBytes(envelope: Omit<E2eeEnvelope, 'signature'>): Buffer {
  return canonicalJsonBytes({ ...protectedHeader(envelope, true), ciphertext: envelope.ciphertext });
}

/** `crypto.key_wraps_hash`: over the key wraps as transmitted (normalised), every field included. */
export function keyWrapsHash(wraps: readonly KeyWrap[]): string {
  return contractHash(canonicalJsonBytes(wraps));
}

/** The signed envelope hash: what replay detection compares (same message_id, same signed bytes). */
export function signedEnvelopeHash(envelope: Omit<E2eeEnvelope, 'signature'>): string {
  return contractHash(envelopeSigningBytes(envelope));
}
