/**
 * Sending (spec §4.4): create-or-send to chosen recipients, and a message into a session, which
 * is also how a participant leaves (`leaving`) and comes back (`rejoining`). Every message is
 * signed inside custody with the sender's current key (messaging/signing.ts), and sealed end to
 * end for the other participants where they all publish a key, or is the envelope a client that
 * holds its own keys made (encryption.ts); what goes to a
 * participant on another node is queued in the federation outbox in the same transaction. A
 * client's envelope for a participant on another node is checked against the key that
 * participant's node publishes now, so the routes' sends find that key first, over the network and
 * before the transaction (`createOrSendFindingKeys`, `sendFindingKeys`, as mail's
 * `sendFindingKeys`). A client `message_id` makes the send happen once
 * (messaging/idempotency.ts): the same content under the id again answers what the first send
 * answered.
 */
import type { CreateSessionInput, SendChatResult, SendMessageInput, StartChatResult } from '../../../../../contract/core/chat.ts';
import type { Db } from '../../../../context.ts';
import { conflict, invalid, ServiceError } from '../../../../errors.ts';
import type { E2eeEnvelope } from '../../../../crypto/e2ee/envelope.ts';
import type { RemoteEncryptionKey } from '../../identities/remote-encryption-keys.ts';
import type { AgentRow } from '../../identities/store/agents.ts';
import { assertFederatable, forwardChat, forwardClientSealedChat, type ChatContent } from '../forwarding.ts';
import { assertChatReachable } from '../reachability.ts';
import {
  assertNamesItself,
  assertSignedFromAddress,
  assertSignedRecipients,
  clientSignatureOf,
  signedRecipient,
  verifyClientSigned,
  type VerifiedClientMessage,
} from '../../messaging/client-signed.ts';
import { earlierAnswer, keyedSend, recordAnswer } from '../../messaging/idempotency.ts';
import type { Party } from '../../messaging/participants.ts';
import type { RecipientSelector } from '../../messaging/recipients.ts';
import type { RemoteQueue } from '../../messaging/remote-queue.ts';
import type { SealedAhead, SendModeRequest } from '../../messaging/end-to-end.ts';
import type { SignedMessage } from '../../messaging/signing.ts';
import type { ChatDeps } from '../deps.ts';
import { assertMessageSize } from '../domain/messages.ts';
import {
  addressee,
  assertDistinctTargets,
  isAgent,
  localAgentIds,
  participantKey,
  remoteParty,
  type Addressee,
  type ChatTarget,
} from '../domain/participants.ts';
import { HANG_ON_EXTENSION_SECONDS } from '../domain/wait-window.ts';
import { hasLeft, memberSession, membershipOf, publishChange, sessionParties } from '../membership.ts';
import { participantView } from '../reads/party-views.ts';
import { keepOpenedChat, messageRowId } from '../store/messages.ts';
import { sessionMemberships } from '../store/participants.ts';
import { findPairSession, type ChatSessionRow } from '../store/sessions.ts';
import { claimedSessionId, sealChatAhead, storedChat } from './encryption.ts';
import { assertReplyTo, hasEngaged, openSession, recordMessage } from './record.ts';

/** What create-or-send decided; ChatService adds the stream's URL (presenter.ts). */
export type StartedChat = Omit<StartChatResult, 'sse_url'>;

/**
 * `createOrSend` as `POST /v1/chat/sessions` makes it: a client's envelope to one participant on
 * another node is checked against the key that participant's node publishes now, so that key is
 * found first (remembered a few minutes; each failure a refusal of its own:
 * core/identities/remote-encryption-keys.ts). A repeat of a send already answered asks no one.
 */
export async function createOrSendFindingKeys(deps: ChatDeps, agentId: string, input: CreateSessionInput): Promise<StartedChat> {
  if (input.encrypted_envelope === undefined || answeredBefore(deps, agentId, 'chat-create', input)) return createOrSend(deps, agentId, input);
  const targets = resolveTargets(deps, deps.identities.row(agentId), input);
  const [only] = targets;
  if (targets.length !== 1 || only === undefined || only.agent !== null) return createOrSend(deps, agentId, input);
  return createOrSend(deps, agentId, input, await deps.remoteKeys.find(only.address));
}

/** `send` as `POST /v1/chat/sessions/{id}/messages` makes it: as `createOrSendFindingKeys`, for the session's participant on another node. */
export async function sendFindingKeys(deps: ChatDeps, agentId: string, sessionId: string, input: SendMessageInput): Promise<SendChatResult> {
  if (answeredBefore(deps, agentId, 'chat-send', input, sessionId)) return send(deps, agentId, sessionId, input);
  if (input.encrypted_envelope === undefined) return send(deps, agentId, sessionId, input, undefined, await sealedAhead(deps, agentId, sessionId, input));
  // Only a participant learns who else is in the session, and only its send asks another node.
  memberSession(deps.ctx.db, agentId, sessionId);
  const remote = sessionParties(deps, sessionId).find((party) => party.agent === null);
  return send(deps, agentId, sessionId, input, remote === undefined ? undefined : await deps.remoteKeys.find(remote.address));
}

/**
 * A message into the session sealed before `send`'s transaction, in the seal worker
 * (encryption.ts, sealChatAhead), for the participants the session has now; null when the node
 * will not seal it, or when anything is wrong with the send, which then says what.
 */
async function sealedAhead(deps: ChatDeps, agentId: string, sessionId: string, input: SendMessageInput): Promise<SealedAhead | null> {
  if (clientSignatureOf(input) !== null) return null;
  try {
    memberSession(deps.ctx.db, agentId, sessionId);
    const parties = sessionParties(deps, sessionId);
    const sender = parties.find((p): p is Party => isAgent(p, agentId)) ?? deps.recipients.party(deps.identities.row(agentId));
    const others = othersOf(parties, agentId);
    return await sealChatAhead(deps, sessionId, sender, addressee(others), others, sendContent(input), input);
  } catch (error) {
    if (error instanceof ServiceError) return null;
    throw error;
  }
}

/** What a message into a session says, as its signature covers it. */
const sendContent = (input: SendMessageInput): ChatContent => ({
  body: input.body,
  reply_to: input.reply_to ?? null,
  wait_seconds: null,
  hang_on: input.hang_on,
  sender_leaving: input.leaving,
});

/** The session's other participants, each as a message names it. */
const othersOf = (parties: ReturnType<typeof sessionParties>, agentId: string): ChatTarget[] =>
  parties.filter((p) => !isAgent(p, agentId)).map((p): ChatTarget => ({ ...p, to: p.address ?? p.alias }));

/** Whether a send under the client's `message_id` was answered already: its repeat is answered again, without a lookup. */
function answeredBefore(
  { ctx }: ChatDeps,
  agentId: string,
  kind: 'chat-create' | 'chat-send',
  input: CreateSessionInput | SendMessageInput,
  sessionId?: string,
): boolean {
  const keyed = sessionId === undefined ? keyedSend(agentId, kind, input) : keyedSend(agentId, kind, input, { session_id: sessionId });
  return keyed !== null && earlierAnswer(ctx.db, keyed) !== undefined;
}

/** The identities `input` names, each on this node or on another (then known by its address). */
function resolveTargets({ recipients }: ChatDeps, senderRow: AgentRow, input: CreateSessionInput): ChatTarget[] {
  const selectors: RecipientSelector[] = [
    ...input.to_aliases.map((alias) => ({ alias })),
    ...input.to_addresses.map((address) => ({ address })),
    ...input.to_dids.map((did) => ({ did })),
  ];
  return selectors.map((selector): ChatTarget => {
    const target = recipients.resolveAcrossNodes(senderRow, selector);
    return 'remote' in target ? { ...remoteParty(target.address), to: target.to } : target;
  });
}

/**
 * POST /v1/chat/sessions: resolves every target, refuses yourself, duplicates and recipients
 * that do not accept the sender, then sends into the session of exactly these participants
 * (reused for two, new for a group) and records a send-and-wait window. `remoteKey`: the current
 * key of the participant on another node a client's envelope is for (`createOrSendFindingKeys`).
 */
export function createOrSend(deps: ChatDeps, agentId: string, input: CreateSessionInput, remoteKey?: RemoteEncryptionKey): StartedChat {
  const { ctx, identities, recipients, presence, queue } = deps;
  const { db } = ctx;
  assertMessageSize(input.message, 'message');
  const content = {
    body: input.message,
    reply_to: input.reply_to ?? null,
    wait_seconds: input.wait_seconds ?? null,
    hang_on: input.hang_on,
    sender_leaving: input.leaving,
  };
  const senderRow = identities.row(agentId);
  const sender = recipients.party(senderRow);
  assertNamesItself(sender.agent, input);
  // A client signature is checked before anything else, a repeat of its send included.
  const clientSigned = verifyChat(deps, sender, input, content);
  const keyed = keyedSend(agentId, 'chat-create', input);
  const earlier = keyed === null ? undefined : earlierAnswer<StartedChat>(db, keyed);
  if (earlier !== undefined) return earlier;
  const targets = resolveTargets(deps, senderRow, input);
  assertFederatable(sender, targets);
  assertDistinctTargets(agentId, targets);
  // As in a session: a target that already took part in this pair's session has answered the
  // sender before, so its contacts-only rule does not stop the conversation continuing.
  const pair = targets.length === 1 ? findPairSession(db, participantKey([sender, ...targets])) : undefined;
  for (const target of targets) assertChatReachable(db, sender, target, pair !== undefined && hasEngaged(db, pair, target));

  const clock = ctx.clock.now();
  const now = clock.toISOString();
  const { started, queued } = db.transaction(() => {
    // Read again inside the transaction: nothing may have answered under the id since.
    const again = keyed === null ? undefined : earlierAnswer<StartedChat>(db, keyed);
    if (again !== undefined) return { started: again, queued: null };
    // A client's envelope starting a group names the session it makes (its conversation).
    const session = openSession(db, sender, targets, now, claimedSessionId(db, input));
    if (input.session_id !== undefined && session.session_id !== input.session_id) {
      throw invalid('SVC_ERR_VALIDATION', [
        {
          loc: ['body', 'session_id'],
          msg: `session_id ${input.session_id} is taken, or these participants already chat in session ${session.session_id}: send into that one`,
          type: 'value_error',
        },
      ]);
    }
    assertReplyTo(db, session.session_id, input.reply_to);
    const message = signAndRecord(deps, session, sender, { to: addressee(targets), targets, clientSigned, remoteKey }, now, content, false, input);
    const queued = forward(queue, sender, targets, message, content);
    const viewer = { agentId, projectId: senderRow.project_id, custody: senderRow.custody };
    const memberships = sessionMemberships(db, session.session_id);
    const started: StartedChat = {
      session_id: session.session_id,
      message_id: message.message_id,
      participants: sessionParties(deps, session.session_id).map((party) => participantView(viewer, party)),
      targets_connected: targets.filter((t) => t.agent !== null && presence.isConnected(session.session_id, t.agent.agent_id)).map((t) => t.alias),
      targets_left: targets.filter((t) => (membershipOf(memberships, t)?.left_at ?? null) !== null).map((t) => t.alias),
    };
    if (keyed !== null) recordAnswer(db, keyed, started, clock);
    return { started, queued };
  })();
  if (queued === null) return started;
  publishChange(ctx.bus, started.session_id, localAgentIds(targets));
  if (queued) queue.nudge();
  return started;
}

/**
 * POST /v1/chat/sessions/{id}/messages: a message to every other participant (`remoteKey` as
 * `createOrSend`'s, and `ahead`, the message sealed before the transaction, from `sendFindingKeys`).
 */
export function send(
  deps: ChatDeps,
  agentId: string,
  sessionId: string,
  input: SendMessageInput,
  remoteKey?: RemoteEncryptionKey,
  ahead?: SealedAhead | null,
): SendChatResult {
  const { ctx, identities, recipients, queue } = deps;
  const { db } = ctx;
  const session = memberSession(db, agentId, sessionId);
  const parties = sessionParties(deps, sessionId);
  const sender = parties.find((p): p is Party => isAgent(p, agentId)) ?? recipients.party(identities.row(agentId));
  const content = sendContent(input);
  assertNamesItself(sender.agent, input);
  // A client signature is checked before anything else, a repeat of its send included.
  const clientSigned = verifyChat(deps, sender, input, content);
  const keyed = keyedSend(agentId, 'chat-send', input, { session_id: sessionId });
  const earlier = keyed === null ? undefined : earlierAnswer<SendChatResult>(db, keyed);
  if (earlier !== undefined) return earlier;
  assertMessageSize(input.body, 'body');
  const others = othersOf(parties, agentId);
  // Being in the session is permission to answer those who took part in it; a contacts-only
  // participant that has not spoken yet is still protected by its own rule.
  for (const other of others) assertChatReachable(db, sender, other, hasEngaged(db, session, other));

  const clock = ctx.clock.now();
  const now = clock.toISOString();
  const { result, queued } = db.transaction(() => {
    const again = keyed === null ? undefined : earlierAnswer<SendChatResult>(db, keyed);
    if (again !== undefined) return { result: again, queued: null };
    if (input.rejoining && !hasLeft(db, sessionId, agentId)) throw conflict('SVC_ERR_CHAT_NOT_LEFT', 'You are in this chat: there is nothing to rejoin');
    assertReplyTo(db, sessionId, input.reply_to);
    // Read again inside the transaction: the wait window may have moved since.
    const fresh = memberSession(db, agentId, sessionId);
    const message = signAndRecord(
      deps,
      fresh,
      sender,
      { to: addressee(others), targets: others, clientSigned, remoteKey, ahead },
      now,
      content,
      input.rejoining,
      input,
    );
    const result: SendChatResult = {
      message_id: message.message_id,
      session_id: sessionId,
      delivered: true as const,
      extends_wait_seconds: input.hang_on ? HANG_ON_EXTENSION_SECONDS : 0,
    };
    if (keyed !== null) recordAnswer(db, keyed, result, clock);
    return { result, queued: forward(queue, sender, others, message, content) };
  })();
  if (queued === null) return result;
  publishChange(ctx.bus, sessionId, localAgentIds(others));
  if (queued) queue.nudge();
  return result;
}

/** A client's message id must be new (a repeat of its own send was answered before this). */
function assertNewMessageId(db: Db, messageId: string | undefined): void {
  if (messageId !== undefined && messageRowId(db, messageId) !== undefined)
    throw conflict('SVC_ERR_MESSAGE_ID_TAKEN', `message_id ${messageId} is already taken`);
}

/** The client's signature over a chat message, checked (client-signed.ts); null when the node is to sign. */
function verifyChat({ ctx }: ChatDeps, sender: Party, input: CreateSessionInput | SendMessageInput, content: ChatContent): VerifiedClientMessage | null {
  const signature = clientSignatureOf(input);
  return signature === null ? null : verifyClientSigned(ctx, sender, signature, { type: 'chat', ...content });
}

/**
 * Whom a message goes to: the signed addressing, the targets, the client's signature when it
 * signed, and the key a client's envelope to a participant on another node must be sealed to.
 */
interface Addressing {
  to: Addressee;
  targets: readonly ChatTarget[];
  clientSigned: VerifiedClientMessage | null;
  remoteKey: RemoteEncryptionKey | undefined;
  /** The message sealed before the transaction, taken if it still fits (encryption.ts). */
  ahead?: SealedAhead | null;
}

/** What a recorded message sends to another node: its plaintext signature (to be sealed as it leaves, or not), or its client's envelope. */
interface Recorded {
  message_id: string;
  signed: SignedMessage | null;
  sealRemote: boolean;
  clientSealed: E2eeEnvelope | null;
}

/** Queues `message` for each participant on another node; says whether there was one (then nudge the outbox after the commit). */
function forward(queue: RemoteQueue, sender: Party, targets: readonly ChatTarget[], message: Recorded, content: ChatContent): boolean {
  if (message.clientSealed !== null) return forwardClientSealedChat(queue, sender, targets, message.clientSealed, content);
  return message.signed !== null && forwardChat(queue, sender, targets, message.signed, content, message.sealRemote);
}

/**
 * `rejoining` is the node's note beside the message, outside the signed envelope (upstream has no
 * such field). Answers the message's id, and its plaintext signature when it has one (what goes
 * to another node).
 */
function signAndRecord(
  deps: ChatDeps,
  session: ChatSessionRow,
  sender: Party,
  { to, targets, clientSigned, remoteKey, ahead }: Addressing,
  now: string,
  content: ChatContent,
  rejoining: boolean,
  request: SendModeRequest & { message_id?: string | undefined },
): Recorded {
  const { ctx } = deps;
  assertNewMessageId(ctx.db, request.message_id);
  if (clientSigned !== null) {
    assertSignedRecipients(clientSigned, targets.map(signedRecipient));
    if (targets.some((t) => t.agent === null)) assertSignedFromAddress(clientSigned, sender);
  }
  const stored = storedChat(deps, session.session_id, sender, to, targets, content, request, clientSigned?.signed ?? null, remoteKey, ahead);
  // An envelope's own id, when the request named none, must be new too.
  if (request.message_id === undefined) assertNewMessageId(ctx.db, stored.messageId);
  recordMessage(ctx.db, session, {
    message_id: stored.messageId,
    session_id: session.session_id,
    from_agent_id: sender.agent.agent_id,
    from_remote_address: null,
    from_alias: sender.alias,
    from_address: sender.address,
    to_text: to.to,
    to_did: to.didKey,
    ...content,
    ...stored.row,
    sender_rejoining: rejoining,
    created_at: now,
    from_namespace_trust: null,
  });
  for (const reader of stored.readers) keepOpenedChat(ctx.db, stored.messageId, reader.agentId, reader.opened);
  return { message_id: stored.messageId, signed: stored.signed, sealRemote: stored.sealRemote, clientSealed: stored.clientSealed };
}
