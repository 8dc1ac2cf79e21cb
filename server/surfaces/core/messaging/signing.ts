/**
 * Every message an identity sends is signed inside custody with its current key, over the
 * canonical envelope of the message-signing rules; the stored `signed_payload` is exactly the
 * signed bytes, so a recipient verifies without trusting the node.
 */
import { randomUUID } from 'node:crypto';
import { signingTimestamp } from '../../../clock.ts';
import type { NodeContext } from '../../../context.ts';
import { sha256Hex, toBase64Unpadded } from '../../../crypto/encoding.ts';
import {
  buildMessageEnvelope,
  messageSigningBytes,
  verifyMessageSignature,
  type MessageFields,
  type MessageVerificationStatus,
} from '../../../crypto/message-signing.ts';
import { invalid } from '../../../errors.ts';
import { MemoCache } from '../../../memo-cache.ts';
import type { Party, Recipient } from './participants.ts';

export interface SignedMessage {
  message_id: string;
  timestamp: string;
  signature: string;
  signed_payload: string;
  from: string;
  from_did: string;
  from_stable_id: string | null;
}

type ContentFields = Omit<MessageFields, 'from' | 'from_did' | 'from_stable_id' | 'to_did' | 'to_stable_id' | 'timestamp' | 'message_id' | 'to'>;

/**
 * A self-custodial sender has no key here: the node signs nothing as it, so its messages come
 * client-signed (client-signed.ts) or not at all.
 */
export function assertNodeMaySign(sender: Party): void {
  if (sender.agent.custody === 'self') {
    throw invalid(
      'SVC_ERR_SIGNATURE_REQUIRED',
      `${sender.alias} is self-custodial: the node holds no key for it and signs nothing as it. Sign the message yourself and send signature, signed_payload, from_did, message_id and timestamp`,
    );
  }
}

/** Bytes signed with the sender's key a moment before the send's transaction (end-to-end.ts, sealAhead), and the signature. */
export interface SignedAhead {
  bytes: Buffer;
  signature: Buffer;
}

/** The bytes `signMessage` signs for this message: its canonical envelope. */
export function messageSigningPayload(
  sender: Party,
  recipient: Pick<Recipient, 'to' | 'didKey' | 'stableId'>,
  content: ContentFields,
  messageId: string,
  timestamp: string,
): Buffer {
  return messageSigningBytes(
    buildMessageEnvelope({
      ...content,
      from: sender.address ?? sender.alias,
      from_did: sender.didKey,
      from_stable_id: sender.stableId,
      to: recipient.to,
      to_did: recipient.didKey,
      to_stable_id: recipient.stableId,
      message_id: messageId,
      timestamp,
    }),
  );
}

/**
 * `messageId`: the client's own id for the message (its idempotency key); otherwise a new one.
 * `timestamp`: the node's time now, unless the message was sealed a moment before (its
 * envelope's time, which the plaintext signature beside it repeats). `ahead`: these very bytes
 * signed then, with the sender's key while custody still holds it; anything else is signed now.
 */
export function signMessage(
  ctx: NodeContext,
  sender: Party,
  recipient: Pick<Recipient, 'to' | 'didKey' | 'stableId'>,
  content: ContentFields,
  messageId: string = randomUUID(),
  timestamp: string = signingTimestamp(ctx.clock),
  ahead?: SignedAhead,
): SignedMessage {
  assertNodeMaySign(sender);
  const bytes = messageSigningPayload(sender, recipient, content, messageId, timestamp);
  const keyId = sender.agent.key_id;
  const signature = ahead !== undefined && ahead.bytes.equals(bytes) && ctx.custody.canSign(keyId) ? ahead.signature : ctx.custody.sign(keyId, bytes);
  return {
    message_id: messageId,
    timestamp,
    signature: toBase64Unpadded(signature),
    signed_payload: bytes.toString('utf8'),
    from: sender.address ?? sender.alias,
    from_did: sender.didKey,
    from_stable_id: sender.stableId,
  };
}

const verdicts = new MemoCache<MessageVerificationStatus>(20_000);

/**
 * The node's verdict on a stored message's signature (inbox items and chat views carry it). Reads
 * serve the same messages again and again, and an Ed25519 check costs far more than the hash that
 * names its inputs, so verdicts are remembered by content.
 */
export function signatureStatus(m: { from_did: string; signature: string; signed_payload: string }): MessageVerificationStatus {
  // One hash over all three keeps each of the 20,000 keys at 64 characters.
  return verdicts.get(sha256Hex(`${m.from_did}\n${m.signature}\n${m.signed_payload}`), () => verifyMessageSignature(m));
}
