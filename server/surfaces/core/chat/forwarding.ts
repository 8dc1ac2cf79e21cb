/**
 * Chat across nodes (DESIGN §8): what a participant of this node sends to one on another node is
 * queued, as signed, in the federation outbox (messaging's RemoteQueue) inside the send's
 * transaction, and delivered after the commit; what the other sends arrives through
 * federation/inbound.ts. Each node keeps its own copy of the session.
 *
 * An envelope a self-custodial sender's client sealed goes as it is instead: the node holds no key
 * to sign or seal it with, so the envelope's own signature is the proof on the wire
 * (docs/adr/0009-end-to-end-chat.md, "With a participant on another node").
 */
import { FEDERATION_VERSION, type FederatedChat } from '../../../../contract/core/federation.ts';
import type { E2eeEnvelope } from '../../../crypto/e2ee/envelope.ts';
import { invalid } from '../../../errors.ts';
import type { RemoteQueue } from '../messaging/remote-queue.ts';
import type { Party } from '../messaging/participants.ts';
import type { SignedMessage } from '../messaging/signing.ts';
import type { ChatParty, ChatTarget } from './domain/participants.ts';
import { clientSealedWire } from '../messaging/client-sealed-wire.ts';

/** What a chat message says beside its signed envelope's addressing. */
export type ChatContent = Pick<FederatedChat, 'body' | 'reply_to' | 'wait_seconds' | 'hang_on' | 'sender_leaving'>;

/** A chat with someone on another node has exactly two participants, and its sender needs an address (the other node checks a sender by it). */
export function assertFederatable(sender: Party, targets: readonly ChatTarget[]): void {
  const remote = targets.find((t) => t.agent === null);
  if (remote === undefined) return;
  if (targets.length > 1)
    throw invalid(
      'SVC_ERR_CHAT_REMOTE_GROUP',
      `${remote.to} is on another node: a chat across nodes has two participants, so start it with that address alone`,
    );
  if (sender.address === null)
    throw invalid(
      'SVC_ERR_SENDER_ADDRESS_REQUIRED',
      `${remote.to} is on another node, which can only check a sender with an address: give this identity an address first`,
    );
}

/**
 * Queues the signed message for each recipient on another node; says whether there was one (then
 * nudge the outbox after the commit). `sealed`: the outbox seals it for each recipient's key as it
 * leaves, one envelope per remote participant listing only that participant (the queued copy is the
 * sender's own, which never crosses).
 */
export function forwardChat(
  queue: RemoteQueue,
  sender: Party,
  recipients: readonly ChatParty[],
  signed: SignedMessage,
  content: ChatContent,
  sealed = false,
): boolean {
  let queued = false;
  for (const recipient of recipients) {
    if (recipient.agent !== null) continue;
    queue.enqueue(
      sender.agent.agent_id,
      recipient.address.slice(0, recipient.address.indexOf('/')),
      {
        v: FEDERATION_VERSION,
        kind: 'chat',
        message_id: signed.message_id,
        from: signed.from,
        from_did: signed.from_did,
        from_stable_id: signed.from_stable_id,
        to: recipient.address,
        body: content.body,
        reply_to: content.reply_to,
        wait_seconds: content.wait_seconds,
        hang_on: content.hang_on,
        sender_leaving: content.sender_leaving,
        timestamp: signed.timestamp,
        signature: signed.signature,
        signed_payload: signed.signed_payload,
      },
      { sealed },
    );
    queued = true;
  }
  return queued;
}

/**
 * Queues the envelope the sender's client sealed for its one participant on another node, as it
 * is (`sealedByClient`: the outbox sends it while it is fresh for its receiver, then bounces it).
 * The wire's fields say what the envelope signed (its sender, ids and time), so the receiving node
 * proves the sender by them; `signature` and `signed_payload` are empty, as upstream's clients post
 * none beside an envelope. What the message says about waiting and leaving, and `reply_to`, stay
 * outside any signature, as a mail's priority and thread do. Says whether it queued one.
 */
export function forwardClientSealedChat(
  queue: RemoteQueue,
  sender: Party,
  recipients: readonly ChatParty[],
  envelope: E2eeEnvelope,
  content: ChatContent,
): boolean {
  let queued = false;
  for (const recipient of recipients) {
    if (recipient.agent === null) {
      queue.enqueue(
        sender.agent.agent_id,
        recipient.address.slice(0, recipient.address.indexOf('/')),
        {
          ...clientSealedWire(envelope, recipient.address),
          kind: 'chat',
          reply_to: content.reply_to,
          wait_seconds: content.wait_seconds,
          hang_on: content.hang_on,
          sender_leaving: content.sender_leaving,
        },
        { sealedByClient: true },
      );
      queued = true;
    }
  }
  return queued;
}
