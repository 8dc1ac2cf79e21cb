/**
 * Mail and chat message signatures, over upstream's envelope
 * (docs/adr/0005-signed-messages-and-federation.md).
 *
 * The envelope's presence rules decide the signed bytes: eight fields always appear (to_did even
 * when ""), the rest only when non-empty or true. Receivers verify over the `signed_payload` bytes
 * they were given, never a reconstruction, so a presence-rule disagreement cannot hide a forgery.
 */
import { canonicalJsonBytes } from './canonical-json.ts';
import { publicKeyFromDidKey } from './did-key.ts';
import { verifyBytes } from './ed25519.ts';
import { fromBase64Unpadded } from './encoding.ts';

export interface MessageFields {
  body: string;
  from: string;
  from_did: string;
  subject: string;
  timestamp: string;
  to: string;
  to_did: string;
  type: 'mail' | 'chat';
  from_stable_id?: string | null;
  to_stable_id?: string | null;
  message_id?: string | null;
  priority?: string | null;
  reply_to?: string | null;
  wait_seconds?: number | null;
  hang_on?: boolean | null;
  sender_leaving?: boolean | null;
}

export type MessageEnvelope = Record<string, string | number | boolean>;

export type MessageVerificationStatus = 'verified' | 'unverified' | 'failed';

const OPTIONAL_STRINGS = ['from_stable_id', 'to_stable_id', 'message_id', 'priority', 'reply_to'] as const;

export function buildMessageEnvelope(fields: MessageFields): MessageEnvelope {
  const envelope: MessageEnvelope = {
    body: fields.body,
    from: fields.from,
    from_did: fields.from_did,
    subject: fields.subject,
    timestamp: fields.timestamp,
    to: fields.to,
    to_did: fields.to_did,
    type: fields.type,
  };
  for (const key of OPTIONAL_STRINGS) {
    const value = fields[key];
    if (value) envelope[key] = value;
  }
  // Upstream signs wait_seconds whenever it is set, zero included.
  if (typeof fields.wait_seconds === 'number') {
    if (!Number.isSafeInteger(fields.wait_seconds)) throw new RangeError('wait_seconds must be an integer');
    envelope.wait_seconds = fields.wait_seconds;
  }
  if (fields.hang_on === true) envelope.hang_on = true;
  if (fields.sender_leaving === true) envelope.sender_leaving = true;
  return envelope;
}

export function messageSigningBytes(envelope: MessageEnvelope): Buffer {
  return canonicalJsonBytes(envelope);
}

/** The `signed_payload` string that travels beside the signature. */
export function messageSignedPayload(envelope: MessageEnvelope): string {
  return messageSigningBytes(envelope).toString('utf8');
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * Missing pieces or a non-did:key sender mean "unverified" (nothing to check); a malformed key or
 * signature, a signing_key_id that disagrees with from_did, or a bad signature mean "failed".
 */
export function verifyMessageSignature(m: {
  signed_payload?: string | null;
  signature?: string | null;
  from_did?: string | null;
  signing_key_id?: string | null;
}): MessageVerificationStatus {
  const { signed_payload: payload, signature, from_did: fromDid, signing_key_id: keyId } = m;
  if (!isText(fromDid) || !isText(signature) || !isText(payload)) return 'unverified';
  if (keyId && keyId !== fromDid) return 'failed';
  if (!fromDid.startsWith('did:key:z')) return 'unverified';
  const publicKey = publicKeyFromDidKey(fromDid);
  const signatureBytes = fromBase64Unpadded(signature);
  if (!publicKey || !signatureBytes) return 'failed';
  return verifyBytes(publicKey, Buffer.from(payload, 'utf8'), signatureBytes) ? 'verified' : 'failed';
}
