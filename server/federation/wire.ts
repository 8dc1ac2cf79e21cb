/**
 * Checking a message one node delivers to another (`POST {peer}/v1/federation/messages`; its wire
 * schemas are contract/core/federation.ts). The receiver trusts nothing it cannot check: the
 * signature must verify with `from_did` over the delivered `signed_payload` bytes, and that
 * payload must say what the delivered fields say.
 *
 * The sender's node signs its custodial identities' messages with the envelope rebuilt here
 * (`envelopeBytes`: `to_did` signed empty, since it addresses the recipient by address and need
 * not know its key). A self-custodial identity's client signs its own envelope, with the latitude
 * the message-signing rules give it (docs/adr/0005-signed-messages-and-federation.md; the same the
 * sending node allowed, messaging/client-signed.ts): `priority` left out for `normal`,
 * `from_stable_id` left out, the recipient's `to_did` (did:key or did:svc) and `to_stable_id`
 * named. So the payload is compared field by field; the recipient's keys, once it is known, by
 * `recipientProblem`.
 *
 * An end-to-end encrypted mail or chat message a self-custodial client sealed itself carries no
 * plaintext signature at all (upstream's clients post none beside an envelope): `signature` and
 * `signed_payload` are empty, and the envelope's own Ed25519 signature, which covers its kind, its
 * sender (`from.did`, `from.address`, `from.stable_id`), its recipient, its ids and its time, is
 * the proof. The delivered fields must then say what the envelope signed
 * (`envelopeSignatureProblem`), so every later check (the sender's address and key on its node,
 * the recipient) reads signed values. A mail's `priority` and `thread_id`, and what a chat message
 * says about replying, waiting and leaving, stay outside any signature, as `thread_id` always is.
 */
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { decodeRaw } from '../crypto/e2ee/encoding.ts';
import { envelopeSigningBytes, parseEnvelope, type E2eeEnvelope } from '../crypto/e2ee/envelope.ts';
import { E2eeError } from '../crypto/e2ee/errors.ts';
import { buildMessageEnvelope, messageSigningBytes, verifyMessageSignature } from '../crypto/message-signing.ts';
import { splitAddress } from '../../contract/core-rules.ts';
import type { FederatedChat, FederatedMail, FederatedMessage } from '../../contract/core/federation.ts';

type Unsigned<T> = Omit<T, 'v' | 'signature' | 'signed_payload' | 'thread_id'>;

/** The envelope the sender's node signs, rebuilt from the delivered fields (`to_did` signed empty). */
export function envelopeBytes(message: Unsigned<FederatedMail> | Unsigned<FederatedChat>): Buffer {
  const shared = {
    body: message.body,
    from: message.from,
    from_did: message.from_did,
    from_stable_id: message.from_stable_id,
    timestamp: message.timestamp,
    to: message.to,
    to_did: '',
    message_id: message.message_id,
  };
  return messageSigningBytes(
    buildMessageEnvelope(
      message.kind === 'mail'
        ? { ...shared, type: 'mail', subject: message.subject, priority: message.priority }
        : {
            ...shared,
            type: 'chat',
            subject: '',
            reply_to: message.reply_to,
            wait_seconds: message.wait_seconds,
            hang_on: message.hang_on,
            sender_leaving: message.sender_leaving,
          },
    ),
  );
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The same address, the domain compared case-insensitively (as the recipient is looked up). */
function sameAddress(a: string, b: string): boolean {
  const x = splitAddress(a);
  const y = splitAddress(b);
  return x !== null && y !== null && x.domain === y.domain && x.name === y.name;
}

/** The signed payload as an object, or null when it is not one. */
function payloadOf(message: FederatedMessage): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(message.signed_payload);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Which delivered field the payload does not say, or null when it says them all. */
function differingField(message: FederatedMessage, payload: Record<string, unknown>): string | null {
  if (payload.type !== message.kind) return 'type';
  for (const field of ['body', 'from', 'from_did', 'timestamp', 'message_id'] as const) if (payload[field] !== message[field]) return field;
  if (!sameAddress(text(payload.to), message.to)) return 'to';
  const stableId = text(payload.from_stable_id);
  if (stableId !== '' && stableId !== message.from_stable_id) return 'from_stable_id';
  if (message.kind === 'mail') {
    if ((payload.subject ?? '') !== message.subject) return 'subject';
    if ((text(payload.priority) || 'normal') !== message.priority) return 'priority';
    return null;
  }
  if (text(payload.subject) !== '') return 'subject';
  if ((text(payload.reply_to) || null) !== message.reply_to) return 'reply_to';
  if ((payload.wait_seconds ?? null) !== message.wait_seconds) return 'wait_seconds';
  if ((payload.hang_on === true) !== message.hang_on) return 'hang_on';
  if ((payload.sender_leaving === true) !== message.sender_leaving) return 'sender_leaving';
  return null;
}

/** Mail or chat whose only signature is its end-to-end envelope's (a self-custodial client sealed it): no plaintext signature beside it. */
export function isEnvelopeSigned(message: FederatedMessage): boolean {
  return message.encrypted_envelope !== undefined && message.signature === '' && message.signed_payload === '';
}

/** Which delivered field the envelope does not say, or null when it says them all. */
function envelopeDifferingField(message: FederatedMessage, envelope: E2eeEnvelope): string | null {
  if (envelope.kind !== message.kind) return 'kind';
  if (envelope.from.address !== message.from) return 'from';
  if (envelope.from.did !== message.from_did) return 'from_did';
  if ((envelope.from.stable_id ?? null) !== message.from_stable_id) return 'from_stable_id';
  if (envelope.message_id !== message.message_id) return 'message_id';
  if (envelope.created_at !== message.timestamp) return 'timestamp';
  const [recipient, ...others] = envelope.recipients;
  if (recipient === undefined || others.length > 0 || !sameAddress(recipient.address ?? '', message.to)) return 'to';
  return null;
}

/** Why an envelope-signed message is not what its envelope's sender signed, or null when it is. */
function envelopeSignatureProblem(message: FederatedMessage): string | null {
  let envelope: E2eeEnvelope;
  try {
    envelope = parseEnvelope(message.encrypted_envelope);
  } catch (error) {
    if (error instanceof E2eeError) return `it carries no signature but its encrypted_envelope's, which cannot be read (${error.category})`;
    throw error;
  }
  const field = envelopeDifferingField(message, envelope);
  if (field !== null) return `the delivered fields are not what the encrypted_envelope signed (${field} differs)`;
  const signer = publicKeyFromDidKey(envelope.from.did);
  const signature = decodeRaw(envelope.signature);
  if (!signer || !signature || !verifyBytes(signer, envelopeSigningBytes(envelope), signature)) {
    return "the encrypted_envelope's signature does not verify with its from.did";
  }
  return null;
}

/** Why the delivered message is not what its sender signed, or null when it is. */
export function signatureProblem(message: FederatedMessage): string | null {
  if (isEnvelopeSigned(message)) return envelopeSignatureProblem(message);
  // The sending node's own envelope is checked byte for byte; a client's, field by field.
  if (!envelopeBytes(message).equals(Buffer.from(message.signed_payload, 'utf8'))) {
    const payload = payloadOf(message);
    const field = payload === null ? 'payload' : differingField(message, payload);
    if (field !== null)
      return `signed_payload is not the canonical envelope of the delivered fields (${field === 'payload' ? 'not a JSON object' : `${field} differs`})`;
  }
  const status = verifyMessageSignature(message);
  if (status !== 'verified') return `the signature does not verify with from_did (${status})`;
  return null;
}

/**
 * Why the recipient's keys the sender signed (`to_did`, `to_stable_id`, when it named them) are
 * not this recipient's, or null when they are: a signature meant for one identity cannot be
 * delivered to another.
 */
export function recipientProblem(message: FederatedMessage, recipient: { did_key: string; did_aw: string | null }): string | null {
  const payload = payloadOf(message);
  if (payload === null) return null;
  const toDid = text(payload.to_did);
  if (toDid !== '' && toDid !== recipient.did_key && toDid !== recipient.did_aw) return `the signed recipient key (to_did) is not the key of ${message.to}`;
  const toStableId = text(payload.to_stable_id);
  if (toStableId !== '' && toStableId !== recipient.did_aw) return `the signed recipient (to_stable_id) is not ${message.to}`;
  return null;
}
