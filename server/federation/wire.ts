/**
 * The messages one node delivers to another (`POST {peer}/v1/federation/messages`, ours: the spec
 * says only that cross-org mail and chat go "through the same endpoints"): mail, and chat
 * messages of a two-party session. Each carries the sender's
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

/** What mail and chat messages share: who, to whom, when, and the signature over it all. */
const common = {
  v: z.literal(FEDERATION_VERSION),
  message_id: z.string().uuid(),
  /** The sender's address, `<domain>/<name>`. */
  from: text(320),
  from_did: text(128),
  from_stable_id: text(128).nullable(),
  /** The recipient's address on the receiving node. */
  to: text(320),
  body: z.string().refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_BODY_BYTES, `must be at most ${MAX_BODY_BYTES} bytes`),
  timestamp: text(64),
  signature: text(256),
  signed_payload: z.string().max(MAX_BODY_BYTES * 2 + 8192),
};

export const FederatedMail = z.strictObject({
  ...common,
  kind: z.literal('mail'),
  subject: text(MAX_SUBJECT),
  priority: z.enum(['low', 'normal', 'high', 'urgent']),
});
export type FederatedMail = z.output<typeof FederatedMail>;

export const FederatedChat = z.strictObject({
  ...common,
  kind: z.literal('chat'),
  reply_to: z.string().uuid().nullable(),
  wait_seconds: z.number().int().min(0).max(86_400).nullable(),
  hang_on: z.boolean(),
  sender_leaving: z.boolean(),
});
export type FederatedChat = z.output<typeof FederatedChat>;

export const FederatedMessage = z.discriminatedUnion('kind', [FederatedMail, FederatedChat]);
export type FederatedMessage = z.output<typeof FederatedMessage>;

type Unsigned<T> = Omit<T, 'v' | 'signature' | 'signed_payload'>;

/** The envelope the sender signed, rebuilt from the delivered fields (`to_did` signed empty). */
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

/** Why the delivered message is not what its sender signed, or null when it is. */
export function signatureProblem(message: FederatedMessage): string | null {
  if (!envelopeBytes(message).equals(Buffer.from(message.signed_payload, 'utf8'))) {
    return 'signed_payload is not the canonical envelope of the delivered fields';
  }
  const status = verifyMessageSignature(message);
  if (status !== 'verified') return `the signature does not verify with from_did (${status})`;
  return null;
}
