/**
 * Chat (spec §4.4; upstream's shapes, docs/adr/0001-upstream-wire-primitives.md): sessions between
 * identities, signed messages, read watermarks, send-and-wait windows, and the reads the session
 * stream and the identity event stream are built from. One object for HTTP, MCP, federation and the
 * streams, and so the one way to chat's rows from outside this folder (search's index reads them
 * for itself, server/search/store/chat.ts); the work is in commands/ (writes), reads/ (read
 * models), store/ (all of chat's SQL) and domain/ (pure rules), and delivery to other nodes in
 * forwarding.ts.
 *
 * Each write publishes on the bus after it commits: the session topic (message and read-receipt
 * frames) and the identity topic of every participant of this node it concerns (wake items).
 */
import type {
  ChatHistory,
  ChatReadMarked,
  ChatSessionsPage,
  CreateSessionInput,
  HistoryInput,
  Pending,
  ReadReceipt,
  SendChatResult,
  SendMessageInput,
  SessionsInput,
  StartChatResult,
} from '../../../../contract/core/chat.ts';
import type { FederatedChat } from '../../../../contract/core/federation.ts';
import type { NodeContext } from '../../../context.ts';
import type { AgentRow } from '../identities/store/agents.ts';
import type { IdentityService } from '../identities/service.ts';
import type { RemoteEncryptionKeys } from '../identities/remote-encryption-keys.ts';
import type { MailService } from '../mail/service.ts';
import type { EndToEnd } from '../messaging/end-to-end.ts';
import type { RemoteQueue } from '../messaging/remote-queue.ts';
import type { Recipients } from '../messaging/recipients.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import { markRead } from './commands/mark-read.ts';
import { hasMessage, receiveRemote, type ArrivedChat } from './commands/receive.ts';
import { createOrSend, createOrSendFindingKeys, send, sendFindingKeys } from './commands/send.ts';
import type { ChatDeps } from './deps.ts';
import type { ChatViewer } from './domain/participants.ts';
import { viewerOf } from './membership.ts';
import { startChatResult } from './presenter.ts';
import { ChatPresence } from './presence.ts';
import { history } from './reads/history.ts';
import type { StreamMessage } from './reads/message-views.ts';
import { assertStreamable, connect, messagesAfter, readReceipt, replay } from './reads/session-feed.ts';
import { listSessions, pending } from './reads/session-list.ts';
import { postedSince, wakeItems, type PostedChat } from './reads/wake.ts';
import { lastChatMessageRowId, lastSessionMessageRowId, messageRowId, messageSessionId, type ChatWakeItem } from './store/messages.ts';
import { readWatermarks } from './store/participants.ts';
import { SESSION_STREAMS_PER_IDENTITY } from './stream-limits.ts';
import { StreamCap } from '../../../events/stream-cap.ts';
import type { SseStream } from '../../../http/sse.ts';

export class ChatService {
  readonly #deps: ChatDeps;
  /** Open session streams per identity, across all its sessions (stream.ts says how many). */
  readonly #streams = new StreamCap(SESSION_STREAMS_PER_IDENTITY);

  constructor(
    ctx: NodeContext,
    identities: IdentityService,
    recipients: Recipients,
    queue: RemoteQueue,
    namespaces: NamespaceService,
    mail: Pick<MailService, 'unreadCount'>,
    endToEnd: EndToEnd,
    remoteKeys: RemoteEncryptionKeys,
  ) {
    this.#deps = { ctx, identities, recipients, namespaces, queue, remoteKeys, mail, endToEnd, presence: new ChatPresence() };
  }

  viewer(agentId: string): ChatViewer {
    return viewerOf(this.#deps, agentId);
  }

  // ---------------------------------------------------------------- writes

  createOrSend(agentId: string, input: CreateSessionInput): StartChatResult {
    return startChatResult(createOrSend(this.#deps, agentId, input));
  }

  send(agentId: string, sessionId: string, input: SendMessageInput): SendChatResult {
    return send(this.#deps, agentId, sessionId, input);
  }

  /**
   * `createOrSend` and `send` as the routes make them: a client's envelope for a participant on
   * another node is checked against the key that participant's node publishes now, found first
   * (over the network, before the send's transaction). Without it such an envelope is refused.
   */
  async createOrSendFindingKeys(agentId: string, input: CreateSessionInput): Promise<StartChatResult> {
    return startChatResult(await createOrSendFindingKeys(this.#deps, agentId, input));
  }

  async sendFindingKeys(agentId: string, sessionId: string, input: SendMessageInput): Promise<SendChatResult> {
    return sendFindingKeys(this.#deps, agentId, sessionId, input);
  }

  markRead(agentId: string, sessionId: string, upToMessageId: string): ChatReadMarked {
    return markRead(this.#deps, agentId, sessionId, upToMessageId);
  }

  /** Whether this message from that key is already stored (a retried delivery); another message under its id is a conflict. */
  hasMessage(messageId: string, fromDid: string): boolean {
    return hasMessage(this.#deps, messageId, fromDid);
  }

  /** A chat message from another node, checked by federation/inbound.ts. */
  receiveRemote(
    message: FederatedChat,
    recipient: AgentRow & { address: string },
    options: { contact: boolean; namespaceTrust: 'verified' | 'unverified' },
    encrypted?: ArrivedChat,
  ): void {
    receiveRemote(this.#deps, message, recipient, options, encrypted);
  }

  /** The session a message of this node is in (the conversation its envelope names as it leaves). */
  sessionOf(messageId: string): string | undefined {
    return messageSessionId(this.#deps.ctx.db, messageId);
  }

  // ---------------------------------------------------------------- reads

  listSessions(agentId: string, query: SessionsInput = {}): ChatSessionsPage {
    return listSessions(this.#deps, agentId, query);
  }

  pending(agentId: string): Pending {
    return pending(this.#deps, agentId);
  }

  history(agentId: string, sessionId: string, query: HistoryInput): ChatHistory {
    return history(this.#deps, agentId, sessionId, query);
  }

  /** The identity event stream's `chat_message` wake items. */
  wakeItems(agentId: string, afterId: number, limit?: number): ChatWakeItem[] {
    return wakeItems(this.#deps, agentId, afterId, limit);
  }

  /** The node-wide wake feed's source. */
  postedSince(afterId: number, limit: number): PostedChat[] {
    return postedSince(this.#deps, afterId, limit);
  }

  lastMessageRowId(): number {
    return lastChatMessageRowId(this.#deps.ctx.db);
  }

  // ---------------------------------------------------------------- session stream

  assertStreamable(agentId: string, sessionId: string): ChatViewer {
    return assertStreamable(this.#deps, agentId, sessionId);
  }

  connect(sessionId: string, agentId: string): () => void {
    return connect(this.#deps, sessionId, agentId);
  }

  /** Counts `stream` as one of the viewer's session streams; its oldest closes beyond the cap. */
  admitStream(agentId: string, stream: SseStream): void {
    this.#streams.admit(agentId, stream);
  }

  /** The row id of a message (0 when unknown): where a wait for replies to it starts. */
  rowIdOf(messageId: string): number {
    return messageRowId(this.#deps.ctx.db, messageId) ?? 0;
  }

  /** The highest message row id in the session (0 when empty): where a live stream starts. */
  lastMessageId(sessionId: string): number {
    return lastSessionMessageRowId(this.#deps.ctx.db, sessionId);
  }

  replay(viewer: ChatViewer, sessionId: string, afterIso: string, limit?: number): StreamMessage[] {
    return replay(this.#deps, viewer, sessionId, afterIso, limit);
  }

  messagesAfter(viewer: ChatViewer, sessionId: string, afterId: number, limit?: number): StreamMessage[] {
    return messagesAfter(this.#deps, viewer, sessionId, afterId, limit);
  }

  /** Every other participant's read watermark (chat_messages.id), by agent id. */
  readWatermarks(sessionId: string, exceptAgentId: string): Map<string, number> {
    return readWatermarks(this.#deps.ctx.db, sessionId, exceptAgentId);
  }

  readReceipt(sessionId: string, readerAgentId: string): ReadReceipt | null {
    return readReceipt(this.#deps, sessionId, readerAgentId);
  }
}
