/**
 * The message one node delivers to another (`POST {peer}/v1/federation/messages`, ours: the spec
 * says only that cross-org mail goes "through the same endpoints"). It carries the sender's
 * signature over the canonical envelope of the message-signing rules; `to_did` is signed empty,
 * since the sender's node addresses the recipient by address and need not know its key.
 * The receiver trusts nothing here it cannot check: the envelope rebuilt from these fields must
 * be the signed bytes, and the signature must verify with `from_did`.
 */
import { z } from 'zod';
import { buildMessageEnvelope, messageSigningBytes, verifyMessageSignature } from '../crypto/message-signing.ts';
import { MAX_BODY_BYTES, MAX_SUBJECT } from '../surfaces/core/mail/schemas.ts';

export const FEDERATION_VERSION = 1;

const text = (max: number) => z.string().max(max);

export const FederatedMail = z.strictObject({
  v: z.literal(FEDERATION_VERSION),
  kind: z.literal('mail'),
  message_id: z.string().uuid(),
  /** The sender's address, `<domain>/<name>`. */
  from: text(320),
  from_did: text(128),
  from_stable_id: text(128).nullable(),
  /** The recipient's address on the receiving node. */
  to: text(320),
  subject: text(MAX_SUBJECT),
  body: z.string().refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_BODY_BYTES, `must be at most ${MAX_BODY_BYTES} bytes`),
  priority: z.enum(['low', 'normal', 'high', 'urgent']),
  timestamp: text(64),
  signature: text(256),
  signed_payload: z.string().max(MAX_BODY_BYTES * 2 + 8192),
});
export type FederatedMail = z.output<typeof FederatedMail>;

/** The envelope the sender signed, rebuilt from the delivered fields. */
export function mailEnvelopeBytes(mail: Omit<FederatedMail, 'v' | 'kind' | 'signature' | 'signed_payload'>): Buffer {
  return messageSigningBytes(
    buildMessageEnvelope({
      type: 'mail',
      body: mail.body,
      from: mail.from,
      from_did: mail.from_did,
      from_stable_id: mail.from_stable_id,
      subject: mail.subject,
      timestamp: mail.timestamp,
      to: mail.to,
      to_did: '',
      message_id: mail.message_id,
      priority: mail.priority,
    }),
  );
}

/** Why the delivered message is not what its sender signed, or null when it is. */
export function signatureProblem(mail: FederatedMail): string | null {
  if (!mailEnvelopeBytes(mail).equals(Buffer.from(mail.signed_payload, 'utf8'))) {
    return 'signed_payload is not the canonical envelope of the delivered fields';
  }
  const status = verifyMessageSignature(mail);
  if (status !== 'verified') return `the signature does not verify with from_did (${status})`;
  return null;
}
