/**
 * How a chat message is stored end to end (docs/adr/0009-end-to-end-chat.md): the participants of
 * a session on this node are its fixed recipients, so a message goes to all the others at once,
 * sealed by the node for a sender whose keys it holds (one envelope, a wrap per other participant
 * and the sender's own copy), as the envelope a client that holds its own keys made (checked, and
 * opened for each participant whose keys the node holds), or as plaintext where that is allowed
 * (messaging/end-to-end.ts decides, no downgrade). To a participant on another node, a client's
 * envelope is checked against the key that participant's node publishes now (found before the
 * send's transaction) and kept as it is, for the outbox to send as sealed. Runs inside the send's
 * transaction.
 */
import { randomUUID } from 'node:crypto';
import { signingTimestamp } from '../../../../clock.ts';
import type { Db } from '../../../../context.ts';
import type { E2eeEnvelope } from '../../../../crypto/e2ee/envelope.ts';
import { invalid, ServiceError } from '../../../../errors.ts';
import type { RemoteEncryptionKey } from '../../identities/remote-encryption-keys.ts';
import { claimedIds, type ChatSendMode, type SealedAhead, type SealRecipient, type SendModeRequest } from '../../messaging/end-to-end.ts';
import type { Party } from '../../messaging/participants.ts';
import { messageSigningPayload, signMessage, type SignedMessage } from '../../messaging/signing.ts';
import type { ChatDeps } from '../deps.ts';
import type { ChatContent } from '../forwarding.ts';
import type { Addressee, ChatTarget } from '../domain/participants.ts';
import type { NewChatMessage, OpenedChat } from '../store/messages.ts';
import { findChatSession } from '../store/sessions.ts';

/** What a message's row holds of its encryption and signature, and what the node opened of it for whom. */
export interface StoredChat {
  /** The message's id (the client's, the envelope's, or the node's). */
  messageId: string;
  /** The node's or the client's plaintext signature; null for a client's envelope (the row holds its signature). */
  signed: SignedMessage | null;
  row: Pick<NewChatMessage, 'from_did' | 'from_stable_id' | 'body' | 'signature' | 'signed_payload' | 'timestamp' | 'content_mode' | 'encrypted_envelope'>;
  readers: { agentId: string; opened: OpenedChat }[];
  /** To a participant on another node: the signed copy is queued to be sealed as it leaves (federation/outbox-sealing.ts). */
  sealRemote: boolean;
  /** To a participant on another node: the envelope the sender's client sealed, queued as it is; null otherwise. */
  clientSealed: E2eeEnvelope | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id a new session takes when the client names one (upstream's `session_id`), or when its
 * first message is a client's envelope: the envelope's `conversation_id` (the client could not know
 * an id the node had not made yet), when it is a fresh UUID; otherwise none, and the envelope fails
 * its conversation check.
 */
export function claimedSessionId(db: Db, request: SendModeRequest & { session_id?: string | undefined }): string | undefined {
  const claimed = request.session_id ?? claimedIds(request.encrypted_envelope).conversationId;
  return UUID.test(claimed) && findChatSession(db, claimed) === undefined ? claimed : undefined;
}

/**
 * What goes into the row of a message from `sender` to `targets` (the other participants) in
 * session `sessionId`. `remoteKey`: the current key of the participant on another node a client's
 * envelope is for (the send found it before its transaction).
 */
export function storedChat(
  { ctx, endToEnd }: ChatDeps,
  sessionId: string,
  sender: Party,
  to: Addressee,
  targets: readonly ChatTarget[],
  content: ChatContent,
  request: SendModeRequest & { message_id?: string | undefined },
  clientSigned: SignedMessage | null,
  remoteKey?: RemoteEncryptionKey,
  ahead?: SealedAhead | null,
): StoredChat {
  const plain = (signed: SignedMessage): StoredChat => ({
    messageId: signed.message_id,
    signed,
    row: { from_did: signed.from_did, from_stable_id: signed.from_stable_id, body: content.body, ...signatureOf(signed), timestamp: signed.timestamp },
    readers: [],
    sealRemote: false,
    clientSealed: null,
  });
  // With the id, time and plaintext signature of a seal made ahead, which the seal then takes if nothing else changed.
  const sign = (): SignedMessage =>
    signMessage(ctx, sender, to, { type: 'chat', subject: '', ...content }, request.message_id ?? ahead?.request.messageId, ahead?.createdAt, ahead?.plaintext);
  const locals = targets.filter((t): t is ChatTarget & Party => t.agent !== null);
  if (locals.length < targets.length) {
    // Across nodes (a two-party session): sealed as it leaves, for the key the other node publishes
    // then, as mail is; a client's own envelope as it sealed it; plaintext only by name or from a
    // client that signs its own.
    if (request.encrypted_envelope !== undefined) return clientSealedForRemote(ctx, endToEnd, sessionId, sender, targets, request, remoteKey);
    if (clientSigned !== null || request.content_mode === 'legacy_plaintext_v1') return plain(clientSigned ?? sign());
    const signed = sign();
    // The envelope is made per delivery, so this node keeps only its sender's copy: the row holds no text.
    return {
      messageId: signed.message_id,
      signed,
      row: { ...encrypted(null), from_did: signed.from_did, from_stable_id: signed.from_stable_id, timestamp: signed.timestamp },
      readers: [{ agentId: sender.agent.agent_id, opened: { body: content.body, ...signatureOf(signed) } }],
      sealRemote: true,
      clientSealed: null,
    };
  }
  const mode = endToEnd.chatModeFor(sender, locals, request, clientSigned !== null);
  if (mode.kind === 'plaintext') return plain(clientSigned ?? sign());
  if (mode.kind === 'seal') {
    // Also signed as a plaintext message, for the participants whose keys the node holds: their
    // clients verify what they read as they verify any chat message.
    const signed = sign();
    const envelope = endToEnd.seal(
      'chat',
      sender,
      sealRecipients(mode),
      { body: content.body },
      { messageId: signed.message_id, conversationId: sessionId, replyToMessageId: content.reply_to ?? undefined },
      signed.timestamp,
      ahead,
    );
    const opened = { body: content.body, ...signatureOf(signed) };
    return {
      messageId: signed.message_id,
      signed,
      row: { ...encrypted(envelope), from_did: signed.from_did, from_stable_id: signed.from_stable_id, timestamp: signed.timestamp },
      readers: [sender, ...locals].filter((party) => party.agent.custody !== 'self').map((party) => ({ agentId: party.agent.agent_id, opened })),
      sealRemote: false,
      clientSealed: null,
    };
  }
  const messageId = request.message_id ?? claimedIds(request.encrypted_envelope).messageId;
  const { envelope, opened } = endToEnd.receiveChat(
    request.encrypted_envelope,
    { messageId, conversationId: sessionId },
    { did: sender.didKey, stableId: sender.stableId, address: sender.address },
    locals,
  );
  return {
    messageId,
    signed: null,
    row: { ...encrypted(envelope), from_did: sender.didKey, from_stable_id: sender.stableId, timestamp: signingTimestamp(ctx.clock) },
    readers: opened.map(({ agentId, content: { body } }) => ({ agentId, opened: { body, signature: '', signed_payload: '' } })),
    sealRemote: false,
    clientSealed: null,
  };
}

/**
 * A client's envelope for the session's participant on another node, checked before anything is
 * stored as mail's is (kind chat, the session as its conversation, that participant exactly as its
 * one recipient with the keys its node holds for it now and sealed to the encryption key it
 * publishes now, `from.address` the sender's, freshness, hashes, signature). The row keeps the
 * envelope, which the node cannot open: no one here reads it but its sender, with its own key.
 * Without the key (a send that did not find it first, as an MCP call) it is refused.
 */
function clientSealedForRemote(
  ctx: ChatDeps['ctx'],
  endToEnd: ChatDeps['endToEnd'],
  sessionId: string,
  sender: Party,
  targets: readonly ChatTarget[],
  request: SendModeRequest & { message_id?: string | undefined },
  remoteKey: RemoteEncryptionKey | undefined,
): StoredChat {
  const remote = targets.find((t) => t.agent === null);
  if (remote === undefined || remoteKey?.address !== remote.address) {
    throw invalid('SVC_ERR_VALIDATION', [
      {
        loc: ['body', 'encrypted_envelope'],
        msg: `an encrypted_envelope for ${remote?.to ?? 'a participant'} on another node is taken only by POST /v1/chat/sessions and POST /v1/chat/sessions/{session_id}/messages`,
        type: 'value_error',
      },
    ]);
  }
  const messageId = request.message_id ?? claimedIds(request.encrypted_envelope).messageId;
  const envelope = endToEnd.receiveForRemote(
    'chat',
    request.encrypted_envelope,
    { messageId, conversationId: sessionId },
    { did: sender.didKey, stableId: sender.stableId, address: sender.address },
    { address: remoteKey.address, didKey: remoteKey.didKey, stableId: remoteKey.stableId, encryptionKeyId: remoteKey.key.encryptionKeyId },
  );
  return {
    messageId,
    signed: null,
    row: { ...encrypted(envelope), from_did: sender.didKey, from_stable_id: sender.stableId, timestamp: signingTimestamp(ctx.clock) },
    readers: [],
    sealRemote: false,
    clientSealed: envelope,
  };
}

/** The participants a message is sealed for, each with its key. */
const sealRecipients = (mode: Extract<ChatSendMode, { kind: 'seal' }>): SealRecipient[] =>
  mode.recipients.map(({ party, key }) => ({ address: party.address, didKey: party.didKey, stableId: party.stableId, key }));

/**
 * A message the node will seal for the other participants of session `sessionId` (all of this
 * node, each publishing a key; the sender's keys held here; nothing named plaintext), sealed now,
 * before the send's transaction, with its plaintext signature (EndToEnd.sealAhead): `storedChat`
 * takes both if nothing they are made from changed meanwhile. Null for any other message, and
 * whenever something is wrong with the send, which then says what.
 */
export async function sealChatAhead(
  { ctx, endToEnd }: ChatDeps,
  sessionId: string,
  sender: Party,
  to: Addressee,
  targets: readonly ChatTarget[],
  content: ChatContent,
  request: SendModeRequest & { message_id?: string | undefined },
): Promise<SealedAhead | null> {
  if (request.encrypted_envelope !== undefined || request.content_mode === 'legacy_plaintext_v1') return null;
  const locals = targets.filter((t): t is ChatTarget & Party => t.agent !== null);
  if (locals.length < targets.length) return null;
  let mode: ChatSendMode;
  try {
    mode = endToEnd.chatModeFor(sender, locals, request, false);
  } catch (error) {
    if (error instanceof ServiceError) return null;
    throw error;
  }
  if (mode.kind !== 'seal') return null;
  const messageId = request.message_id ?? randomUUID();
  const createdAt = signingTimestamp(ctx.clock);
  const plaintext = messageSigningPayload(sender, to, { type: 'chat', subject: '', ...content }, messageId, createdAt);
  const ids = { messageId, conversationId: sessionId, replyToMessageId: content.reply_to ?? undefined };
  return endToEnd.sealAhead('chat', sender, sealRecipients(mode), { body: content.body }, ids, createdAt, plaintext);
}

const signatureOf = (signed: SignedMessage) => ({ signature: signed.signature, signed_payload: signed.signed_payload });

/** The row of an encrypted message: the envelope and its signature (none yet for one sealed as it leaves), no text and no plaintext signature. */
function encrypted(envelope: { signature: string } | null) {
  return {
    body: '',
    signature: envelope?.signature ?? '',
    signed_payload: '',
    content_mode: 'encrypted_v2' as const,
    encrypted_envelope: envelope === null ? null : JSON.stringify(envelope),
  };
}
