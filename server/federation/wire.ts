/**
 * Checking a message one node delivers to another (`POST {peer}/v1/federation/messages`; its wire
 * schemas are contract/core/federation.ts). The receiver trusts nothing it cannot check: the
 * envelope rebuilt from the delivered fields (`to_did` signed empty, since the sender's node
 * addresses the recipient by address and need not know its key) must be the signed bytes, and
 * the signature must verify with `from_did`.
 */
import { buildMessageEnvelope, messageSigningBytes, verifyMessageSignature } from '../crypto/message-signing.ts';
import type { FederatedChat, FederatedMail, FederatedMessage } from '../../contract/core/federation.ts';

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
