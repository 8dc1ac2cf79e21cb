/**
 * The encrypted inner payload (upstream's e2e-messaging-contract.md, "Inner Encrypted Payload"):
 * the message's own header mirrored inside the ciphertext, and the subject and body.
 *
 * The header mirror is what stops a sender-signed but relay-swapped envelope from lending its
 * content to another message: after decrypting, the reader compares it with the signed outer
 * envelope and with `crypto.inner_header_hash`, and shows nothing when either differs. Identities
 * are compared on address, did, stable id and team id, as upstream's implementations compare them
 * (the contract's example leaves out team_id; its implementations carry it).
 */
import { canonicalJsonBytes } from '../canonical-json.ts';
import { contractHash } from './encoding.ts';
import type { E2eeEnvelope, IdentityRef, MessageKind } from './envelope.ts';
import { ContentDecryptionError, InnerHeaderMismatchError } from './errors.ts';

export const INNER_VERSION = 2;

export interface InnerPayload {
  inner_version: typeof INNER_VERSION;
  kind: MessageKind;
  message_id: string;
  conversation_id: string;
  reply_to_message_id?: string;
  created_at: string;
  from: IdentityRef;
  recipients: IdentityRef[];
  /** Mail only: present (possibly "") for mail, absent for chat. */
  subject?: string;
  body: string;
}

/** An identity with only the four mirrored fields, empty ones left out. */
export function identityRef(ref: IdentityRef): IdentityRef {
  const out: IdentityRef = {};
  if (ref.address) out.address = ref.address;
  if (ref.did) out.did = ref.did;
  if (ref.stable_id) out.stable_id = ref.stable_id;
  if (ref.team_id) out.team_id = ref.team_id;
  return out;
}

function header(inner: InnerPayload): Record<string, unknown> {
  return {
    inner_version: inner.inner_version,
    kind: inner.kind,
    message_id: inner.message_id,
    conversation_id: inner.conversation_id,
    reply_to_message_id: inner.reply_to_message_id || undefined,
    created_at: inner.created_at,
    from: identityRef(inner.from),
    recipients: inner.recipients.map(identityRef),
  };
}

/** The AES-GCM plaintext: canonical JSON of the header, the subject (mail) and the body. */
export function innerPayloadBytes(inner: InnerPayload): Buffer {
  return canonicalJsonBytes({ ...header(inner), ...(inner.kind === 'mail' ? { subject: inner.subject ?? '' } : {}), body: inner.body });
}

/** `crypto.inner_header_hash`: over the inner payload without subject and body. */
export function innerHeaderHash(inner: InnerPayload): string {
  return contractHash(canonicalJsonBytes(header(inner)));
}

function text(record: Record<string, unknown>, key: string): string {
  const value = record[key];
  if (typeof value !== 'string') throw new ContentDecryptionError(`decrypted payload ${key} must be a string`);
  return value.trim();
}

function ref(value: unknown): IdentityRef {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ContentDecryptionError('decrypted payload identity must be an object');
  const record = value as Record<string, unknown>;
  const out: IdentityRef = {};
  for (const key of ['address', 'did', 'stable_id', 'team_id'] as const) {
    const field = record[key];
    if (field === undefined || field === null) continue;
    if (typeof field !== 'string') throw new ContentDecryptionError(`decrypted payload identity ${key} must be a string`);
    if (field.trim() !== '') out[key] = field.trim();
  }
  return out;
}

/** Reads decrypted bytes. Subject and body are kept exactly (they are the message); ids are trimmed as upstream trims them. */
export function parseInnerPayload(plaintext: Buffer): InnerPayload {
  let value: unknown;
  try {
    value = JSON.parse(plaintext.toString('utf8'));
  } catch {
    throw new ContentDecryptionError('decrypted payload is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ContentDecryptionError('decrypted payload must be an object');
  const record = value as Record<string, unknown>;
  if (record.inner_version !== INNER_VERSION) throw new InnerHeaderMismatchError('inner_version is not 2');
  const kind = record.kind;
  if (kind !== 'mail' && kind !== 'chat') throw new InnerHeaderMismatchError('inner kind is not mail or chat');
  if (!Array.isArray(record.recipients)) throw new ContentDecryptionError('decrypted payload recipients must be an array');
  const reply = record.reply_to_message_id === undefined || record.reply_to_message_id === null ? '' : text(record, 'reply_to_message_id');
  const subject = record.subject;
  if (subject !== undefined && typeof subject !== 'string') throw new ContentDecryptionError('decrypted payload subject must be a string');
  const body = record.body;
  if (typeof body !== 'string') throw new ContentDecryptionError('decrypted payload body must be a string');
  return {
    inner_version: INNER_VERSION,
    kind,
    message_id: text(record, 'message_id'),
    conversation_id: text(record, 'conversation_id'),
    ...(reply ? { reply_to_message_id: reply } : {}),
    created_at: text(record, 'created_at'),
    from: ref(record.from),
    recipients: record.recipients.map(ref),
    ...(kind === 'mail' ? { subject: subject ?? '' } : {}),
    body,
  };
}

function sameIdentity(a: IdentityRef, b: IdentityRef): boolean {
  const x = identityRef(a);
  const y = identityRef(b);
  return x.address === y.address && x.did === y.did && x.stable_id === y.stable_id && x.team_id === y.team_id;
}

/**
 * Fails closed unless the decrypted header is the signed envelope's: the hash first, then each
 * mirrored field, recipients in order.
 */
export function checkInnerHeader(envelope: E2eeEnvelope, inner: InnerPayload): void {
  if (innerHeaderHash(inner) !== envelope.crypto.inner_header_hash)
    throw new InnerHeaderMismatchError('inner header hash does not match crypto.inner_header_hash');
  if (
    inner.kind !== envelope.kind ||
    inner.message_id !== envelope.message_id ||
    inner.conversation_id !== envelope.conversation_id ||
    (inner.reply_to_message_id ?? '') !== (envelope.reply_to_message_id ?? '') ||
    inner.created_at !== envelope.created_at
  ) {
    throw new InnerHeaderMismatchError('inner header does not match the outer envelope');
  }
  if (!sameIdentity(inner.from, envelope.from)) throw new InnerHeaderMismatchError('inner sender does not match the outer envelope');
  if (inner.recipients.length !== envelope.recipients.length || inner.recipients.some((r, i) => !sameIdentity(r, envelope.recipients[i]!))) {
    throw new InnerHeaderMismatchError('inner recipients do not match the outer envelope');
  }
}
