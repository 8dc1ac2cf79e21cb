/**
 * Chat as one identity (/v1/chat): sessions, a conversation's history, sending (leaving and
 * rejoining too), read positions, and a session's live stream. Through `IdentityRequests`
 * (identity-keys.ts).
 */
// The wire contract (contract/) is written once, for the node and for this client, so the two
// cannot drift apart.
import type {
  ChatHistory,
  ChatMessage,
  ChatReadMarked,
  ChatSessionsPage,
  CreateSessionRequest,
  Pending,
  ReadReceipt,
  SendChatResult,
  StartChatResult,
} from '../../../contract/core/chat.ts';
import { query } from './http.ts';
import type { IdentityRequests } from './identity-keys.ts';
import { frameJson } from './sse.ts';
import type { StreamHandle, StreamState } from './sse.ts';

// ---------------------------------------------------------------------------------------------
// Wire types: the contract's, contract/core/chat.ts, re-exported for the views and stores
// ---------------------------------------------------------------------------------------------

export type {
  ChatHistory,
  ChatLastMessage,
  ChatMember,
  ChatMessage,
  ChatSession,
  ChatSessionsPage,
  Pending,
  PendingChat,
  ReadReceipt,
  SendChatResult,
  StartChatResult,
} from '../../../contract/core/chat.ts';

/**
 * A new chat: its targets, by kind, and the first message; `content_mode` `legacy_plaintext_v1`
 * sends it as plaintext, only when the person chose it (the node encrypts wherever it can).
 */
export type StartChatInput = Pick<CreateSessionRequest, 'to_addresses' | 'to_aliases' | 'to_dids' | 'message'> & {
  content_mode?: 'legacy_plaintext_v1';
};

/** What a chat session stream delivers. */
export type SessionEvent = { kind: 'message'; message: ChatMessage } | { kind: 'read_receipt'; receipt: ReadReceipt };

// ---------------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------------

const part = encodeURIComponent;

export class ChatClient {
  readonly #requests: IdentityRequests;

  constructor(requests: IdentityRequests) {
    this.#requests = requests;
  }

  /** One page of sessions, newest activity first; `before` is the previous page's `next_before`. */
  sessionsPage(options: { limit: number; before?: string | null }): Promise<ChatSessionsPage> {
    return this.#requests.call<ChatSessionsPage>('GET', `/v1/chat/sessions${query({ limit: options.limit, before: options.before ?? undefined })}`);
  }

  pending(): Promise<Pending> {
    return this.#requests.call<Pending>('GET', '/v1/chat/pending');
  }

  /** The newest `limit` messages, oldest first, with each participant's read position and membership. */
  conversation(sessionId: string, limit = 200): Promise<ChatHistory> {
    return this.#requests.call<ChatHistory>('GET', `/v1/chat/sessions/${part(sessionId)}/messages${query({ limit })}`);
  }

  start(input: StartChatInput): Promise<StartChatResult> {
    return this.#requests.call<StartChatResult>('POST', '/v1/chat/sessions', input);
  }

  /**
   * `rejoining` (ours) takes me back into a chat I left; it is only sent when set. `content_mode`
   * `legacy_plaintext_v1` sends plaintext, only by the person's choice; left out, the node seals
   * the message when everyone in the chat publishes a key.
   */
  send(
    sessionId: string,
    body: string,
    options: { leaving?: boolean; rejoining?: boolean; content_mode?: 'legacy_plaintext_v1' } = {},
  ): Promise<SendChatResult> {
    return this.#requests.call<SendChatResult>('POST', `/v1/chat/sessions/${part(sessionId)}/messages`, {
      body,
      leaving: options.leaving ?? false,
      ...(options.rejoining === true ? { rejoining: true } : {}),
      ...(options.content_mode === undefined ? {} : { content_mode: options.content_mode }),
    });
  }

  markRead(sessionId: string, upToMessageId: string): Promise<ChatReadMarked> {
    return this.#requests.call('POST', `/v1/chat/sessions/${part(sessionId)}/read`, { up_to_message_id: upToMessageId });
  }

  /**
   * A session's live stream: new messages and the others' read receipts. Each reconnect asks
   * for what was stored after `after()` (the newest message seen), so nothing falls in the gap.
   */
  stream(
    sessionId: string,
    handlers: {
      after: () => string | null;
      onEvent: (event: SessionEvent) => void;
      onState?: (state: StreamState, detail: string | null) => void;
    },
  ): StreamHandle {
    return this.#requests.stream({
      path: (deadline) => `/v1/chat/sessions/${part(sessionId)}/stream${query({ deadline, after: handlers.after() ?? undefined })}`,
      onState: handlers.onState,
      onFrame: (frame) => {
        if (frame.event === 'message') {
          const message = frameJson<ChatMessage>(frame);
          if (message !== null && typeof message.message_id === 'string') handlers.onEvent({ kind: 'message', message });
        } else if (frame.event === 'read_receipt') {
          const receipt = frameJson<ReadReceipt>(frame);
          if (receipt !== null && typeof receipt.up_to_message_id === 'string') handlers.onEvent({ kind: 'read_receipt', receipt });
        }
      },
    });
  }
}
