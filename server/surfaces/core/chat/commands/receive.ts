/**
 * A chat message from an identity on another node, whose signature and address
 * federation/inbound.ts has checked: stored in the two-party session of this pair (made by its
 * first message).
 */
import type { FederatedChat } from '../../../../../contract/core/federation.ts';
import { conflict } from '../../../../errors.ts';
import type { AgentRow } from '../../identities/store/agents.ts';
import { assertRemoteChatAccepted } from '../reachability.ts';
import type { ChatDeps } from '../deps.ts';
import { participantKey, remoteParty } from '../domain/participants.ts';
import { publishChange } from '../membership.ts';
import { hasSpoken, keepOpenedChat, messageSignerDid } from '../store/messages.ts';
import { updateRemoteParticipant } from '../store/participants.ts';
import { findPairSession } from '../store/sessions.ts';
import { openSession, recordMessage } from './record.ts';

/** Whether this message from that key is already stored (a retried delivery); another message under its id is a conflict. */
export function hasMessage({ ctx }: ChatDeps, messageId: string, fromDid: string): boolean {
  const stored = messageSignerDid(ctx.db, messageId);
  if (stored === undefined) return false;
  if (stored !== fromDid) throw conflict('SVC_ERR_MESSAGE_ID_TAKEN', `Refused: message_id ${messageId} is already taken`);
  return true;
}

/** An end-to-end encrypted message's envelope as federation checked it, and what the node opened of it for its recipient (null when it holds its own keys). */
export interface ArrivedChat {
  envelopeJson: string;
  signature: string;
  opened: { body: string } | null;
}

/**
 * A contacts-only recipient takes it from a contact, or from someone it has answered in their
 * session. An encrypted message is stored as its envelope, and what the node opened kept for the
 * recipient alone (as a message sent here is).
 */
export function receiveRemote(
  { ctx, recipients }: ChatDeps,
  message: FederatedChat,
  recipient: AgentRow & { address: string },
  options: { contact: boolean; namespaceTrust: 'verified' | 'unverified' },
  encrypted?: ArrivedChat,
): void {
  const { db } = ctx;
  const local = recipients.party(recipient);
  const remote = remoteParty(message.from, message.from_stable_id ?? message.from_did);
  const now = ctx.clock.now().toISOString();
  const sessionId = db.transaction(() => {
    const existing = findPairSession(db, participantKey([local, remote]));
    const answered = existing !== undefined && hasSpoken(db, existing.session_id, recipient.agent_id);
    assertRemoteChatAccepted(recipient, message.to, { contact: options.contact, answered });
    // Made here by the first message, the session is recorded as the local participant's.
    const session = existing ?? openSession(db, local, [remote], now);
    updateRemoteParticipant(db, session.session_id, remote.address, { alias: remote.alias, did: remote.stableId ?? message.from_did });
    // Its wait_seconds opens a window on its own node; recordMessage keeps only its hang_on and goodbye here.
    recordMessage(db, session, {
      message_id: message.message_id,
      session_id: session.session_id,
      from_agent_id: null,
      from_remote_address: remote.address,
      from_alias: remote.alias,
      from_address: message.from,
      from_did: message.from_did,
      from_stable_id: message.from_stable_id,
      to_text: message.to,
      to_did: '',
      body: message.body,
      reply_to: message.reply_to,
      sender_leaving: message.sender_leaving,
      sender_rejoining: false,
      hang_on: message.hang_on,
      wait_seconds: message.wait_seconds,
      signature: message.signature,
      signed_payload: message.signed_payload,
      timestamp: message.timestamp,
      created_at: now,
      from_namespace_trust: options.namespaceTrust,
      ...(encrypted === undefined
        ? {}
        : { body: '', signature: encrypted.signature, signed_payload: '', content_mode: 'encrypted_v2' as const, encrypted_envelope: encrypted.envelopeJson }),
    });
    if (encrypted?.opened) keepOpenedChat(db, message.message_id, recipient.agent_id, { body: encrypted.opened.body, signature: '', signed_payload: '' });
    return session.session_id;
  })();
  publishChange(ctx.bus, sessionId, [recipient.agent_id]);
}
