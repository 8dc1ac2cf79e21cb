/**
 * Mail as one identity (/v1/messages): the inbox and its folders, sending, what was sent, and the
 * delivery state of mail to other nodes. Through `IdentityRequests` (identity-keys.ts).
 */
// The wire contract (contract/) is written once, for the node and for this client, so the two
// cannot drift apart.
import type {
  InboxPage,
  MailAcknowledged,
  MailDeleted,
  MailFolder,
  MailFolderState,
  MailMessage,
  OutboundList,
  OutboundMail,
  RenderedMail,
  SendMailRequest,
  SendMailResult,
  SentMail,
  SentPage,
} from '../../../contract/core/mail.ts';
import { PRIORITIES } from '../../../contract/core-rules.ts';
import { ApiError } from './errors.ts';
import { query } from './http.ts';
import type { IdentityRequests } from './identity-keys.ts';

// ---------------------------------------------------------------------------------------------
// Wire types: the contract's, contract/core/mail.ts, re-exported for the views and stores
// ---------------------------------------------------------------------------------------------

export type {
  InboxPage,
  MailFolderState,
  MailMessage,
  MailOrigin,
  OutboundMail,
  OutboundStatus,
  Priority,
  SendMailResult,
  SendStatus,
  SentMail,
  SentPage,
  SignatureStatus,
} from '../../../contract/core/mail.ts';
export { PRIORITIES };

/** The inbox as `MailClient.inbox` asks for it (the query string is built from these). */
export interface InboxQuery {
  limit?: number;
  unreadOnly?: boolean;
  before?: string;
  messageId?: string;
  /** Ours: `archive` lists what was archived; the default is the inbox. */
  folder?: MailFolder;
  /** Ours: one thread's mail, from either folder. */
  threadId?: string;
}

/**
 * A send: recipients go in the list for their kind (address, alias in my project, did); a reply
 * names its thread; `message_id` (one recipient) makes a retry the same send; `content_mode`
 * `legacy_plaintext_v1` sends plaintext, only when the person chose it (the node encrypts
 * otherwise, and refuses a recipient without a key).
 */
export type SendMailInput = Pick<
  SendMailRequest,
  'to_addresses' | 'to_aliases' | 'to_dids' | 'subject' | 'body' | 'priority' | 'thread_id' | 'message_id' | 'content_mode'
>;

/** A thread's mail as this identity has it: what it received and what it sent, each newest first. */
export interface MailThread {
  received: MailMessage[];
  sent: SentMail[];
}

// ---------------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------------

export class MailClient {
  readonly #requests: IdentityRequests;

  constructor(requests: IdentityRequests) {
    this.#requests = requests;
  }

  inbox(options: InboxQuery = {}): Promise<InboxPage> {
    return this.#requests.call<InboxPage>(
      'GET',
      `/v1/messages/inbox${query({
        limit: options.limit,
        unread_only: options.unreadOnly ? 'true' : undefined,
        before: options.before,
        message_id: options.messageId,
        folder: options.folder,
        thread_id: options.threadId,
      })}`,
    );
  }

  /** A thread (its first message's id): the newest 200 received and sent. */
  async thread(threadId: string): Promise<MailThread> {
    const [received, sent] = await Promise.all([
      this.inbox({ threadId, limit: 200 }),
      this.#requests.call<SentPage>('GET', `/v1/messages/sent${query({ thread_id: threadId, limit: 200 })}`),
    ]);
    return { received: received.messages, sent: sent.messages };
  }

  /** One message of the inbox by id, or null when it is not (or no longer) there. */
  async message(messageId: string): Promise<MailMessage | null> {
    return (await this.inbox({ messageId, limit: 1 })).messages[0] ?? null;
  }

  send(input: SendMailInput): Promise<SendMailResult> {
    return this.#requests.call<SendMailResult>('POST', '/v1/messages', input);
  }

  /** This identity's mail (and chat) to other nodes with its delivery state, newest first. */
  async outbound(): Promise<OutboundMail[]> {
    return (await this.#requests.call<OutboundList>('GET', '/v1/messages/outbound')).messages;
  }

  ack(messageId: string): Promise<MailAcknowledged> {
    return this.#requests.call('POST', `/v1/messages/${encodeURIComponent(messageId)}/ack`, {});
  }

  // Mail folders (the node's own, beyond upstream's inbox).

  /** Everything this identity sent, newest first, one item per recipient. */
  sent(options: { limit?: number; before?: string } = {}): Promise<SentPage> {
    return this.#requests.call<SentPage>('GET', `/v1/messages/sent${query({ limit: options.limit, before: options.before })}`);
  }

  /** One message this identity sent, by id (however long ago), as Sent lists it; null when it sent none by that id. */
  async sentMessage(messageId: string): Promise<SentMail | null> {
    try {
      return await this.#requests.call<SentMail>('GET', `/v1/messages/sent/${encodeURIComponent(messageId)}`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }

  /** Archive (marks it read), back to the inbox, or unread again (back in the inbox). */
  move(messageId: string, action: 'archive' | 'unarchive' | 'unread'): Promise<MailFolderState> {
    return this.#requests.call<MailFolderState>('POST', `/v1/messages/${encodeURIComponent(messageId)}/${action}`, {});
  }

  /** Deletes it from this inbox for good (the sender keeps its copy). */
  delete(messageId: string): Promise<MailDeleted> {
    return this.#requests.call('DELETE', `/v1/messages/${encodeURIComponent(messageId)}`);
  }

  /** The body as HTML, rendered and sanitised by the node (links kept, outside images dropped). */
  async renderedBody(messageId: string): Promise<string> {
    return (await this.#requests.call<RenderedMail>('GET', `/v1/messages/${encodeURIComponent(messageId)}/rendered`)).body_html;
  }
}
