/**
 * The one typed HTTP client between the UI and the node. Every request the renderer makes goes
 * through here; views and stores never call `fetch` themselves.
 *
 * Where the connection details come from:
 * - Desktop (Electron): the preload exposes `window.svc` with the owner token and the node's URLs.
 * - Browser (the headless node serves this build at /ui/): the node prints a link ending in
 *   `#code=<one-time code>`. At startup we take the code out of the address bar (so it is neither
 *   bookmarked nor reused), exchange it once at `POST /v1/node/session` for the owner token, and
 *   keep the token in localStorage under a key naming this origin. The core URL is the page origin.
 *
 * Acting as an identity: the owner has no identity keys (they are shown once, at creation). The
 * UI mints a short-lived session key per identity with the owner token when it first needs one
 * (`SessionKeys`, memory only) and calls the ordinary identity API with it (`IdentityClient`),
 * minting a fresh one once when the node answers 401.
 *
 * Errors: the node answers `{"detail": string | [{loc, msg, type}]}`. Every failure becomes an
 * `ApiError` whose `message` is that detail in plain words, ready to show next to the action.
 */
// The wire contract (contract/) is written once, for the node and for this client (issue 15).
import type { Contact } from '../../../contract/core/contacts.ts';
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
import type { NodeChangeKind, NodeWakeItem } from '../../../contract/core/events.ts';
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
  SentPage,
} from '../../../contract/core/mail.ts';
import { PRIORITIES } from '../../../contract/core-rules.ts';
import type { CreatedIdentity, Identity, IdentityStatus, Lifetime, Reachability } from '../../../contract/core/identities.ts';
import type { Namespace, NamespaceAuthority, VerificationStatus } from '../../../contract/core/namespaces.ts';
import type { CreateIdentityInput, SessionKey } from '../../../contract/node/identities.ts';
import type { CreatedProject, CreateNamespaceInput, CreateProjectInput, NodeInfo, OwnerSession, ProjectListItem, UiLink } from '../../../contract/node/owner.ts';
import type { Peer, PeerInput, PeerRemoved } from '../../../contract/node/peers.ts';
import type { SetupInput, SetupResult } from '../../../contract/node/setup.ts';
import type { CreateTeamInput, SignedRequest, SignInput, Team } from '../../../contract/node/teams.ts';
import type { TunnelConfig, TunnelConfigInput, TunnelState, TunnelStatus, TunnelView } from '../../../contract/node/tunnel.ts';
import type { SvcBridge } from '../../../preload/api.d.ts';
import { ApiError, errorIssues, errorMessage } from './errors.ts';
import { frameJson, openStream } from './sse.ts';
import type { FetchLike, SseFrame, StreamHandle, StreamState } from './sse.ts';

export type { FetchLike, StreamHandle, StreamState };

// ---------------------------------------------------------------------------------------------
// Wire types (owner API, /v1/node/...; identities, namespaces): the contract's, contract/core/ and contract/node/
// ---------------------------------------------------------------------------------------------

export type { Identity, CreatedIdentity, IdentityStatus, Lifetime, Reachability };
export type { Namespace, NamespaceAuthority, VerificationStatus };
export type { NodeInfo, ProjectListItem, CreatedProject, CreateProjectInput, CreateIdentityInput, SessionKey, SetupInput, SetupResult };
export type { Team, CreateTeamInput, SignedRequest as SignedTeamRequest, Peer, PeerRemoved };
export type { TunnelState, TunnelStatus, TunnelConfig, TunnelView, TunnelConfigInput };

/** What the owner asks the node to sign: the exact method, request target and body to be sent (and, for documents, who the app acts as). */
export type TeamRequestToSign = Omit<SignInput, 'surface'>;

// ---------------------------------------------------------------------------------------------
// Wire types (identity API: /v1/messages, /v1/contacts, /v1/chat; the event streams): the
// contract's, contract/core/{mail,chat,events}.ts, re-exported for the views and stores
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
/** The owner feed's new mail and chat for one identity on this node. */
export type { NodeChatWake, NodeMailWake, NodeWakeItem } from '../../../contract/core/events.ts';
/** What a sender's address can be trusted as (a mail's or chat message's `from_namespace_trust`). */
export type { NamespaceTrust } from '../../../contract/core/namespaces.ts';
export type { Contact };
export { PRIORITIES };

/** A nudge on the owner feed, as the views take it: what changed (never the data itself). */
export interface NodeChange {
  kind: NodeChangeKind;
  /** The team, for library and documents changes (null for the catalog and the tunnel). */
  teamId: string | null;
  /** For mail changes: whose message, and which (archived, unarchived, deleted, marked read or unread). */
  agentId?: string;
  messageId?: string;
}

/** Every nudge the feed sends (contract/core/events.ts, NodeFeedChanges): a new one fails to compile here until it is named. */
const NODE_CHANGES: Record<NodeChangeKind, true> = {
  library_changed: true,
  docs_changed: true,
  catalog_changed: true,
  tunnel_changed: true,
  teams_changed: true,
  mail_changed: true,
};
const isNodeChange = (event: string): event is NodeChangeKind => Object.hasOwn(NODE_CHANGES, event);

/** The inbox as `IdentityClient.inbox` asks for it (the query string is built from these). */
export interface InboxQuery {
  limit?: number;
  unreadOnly?: boolean;
  before?: string;
  messageId?: string;
  /** Ours: `archive` lists what was archived; the default is the inbox. */
  folder?: MailFolder;
}

/** A send: recipients go in the list for their kind (address, alias in my project, did). */
export type SendMailInput = Pick<SendMailRequest, 'to_addresses' | 'to_aliases' | 'to_dids' | 'subject' | 'body' | 'priority'>;

/** A new chat: its targets, by kind, and the first message. */
export type StartChatInput = Pick<CreateSessionRequest, 'to_addresses' | 'to_aliases' | 'to_dids' | 'message'>;

/** What a chat session stream delivers. */
export type SessionEvent = { kind: 'message'; message: ChatMessage } | { kind: 'read_receipt'; receipt: ReadReceipt };

// Errors live in errors.ts (shared with sse.ts); re-exported here for callers.
export { ApiError, errorMessage, formatDetail } from './errors.ts';
export type { FieldIssue } from './errors.ts';

// ---------------------------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------------------------


async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * One request whose answer is JSON: a failure of any kind becomes an `ApiError` in plain words.
 * Shared by every client here and in library.ts (which sends its own signed headers).
 */
export async function fetchJson<T>(
  fetchImpl: FetchLike,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | undefined },
): Promise<T> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: init.method,
      headers: init.headers,
      body: init.body,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, `Could not reach the node at ${new URL(url).origin}. Is it still running?`);
  }
  const data = await readJson(response);
  if (!response.ok) throw new ApiError(response.status, errorMessage(response.status, data), errorIssues(data));
  if (data === null) throw new ApiError(response.status, 'The node sent an empty or unreadable answer.');
  return data as T;
}

async function requestJson<T>(
  fetchImpl: FetchLike,
  url: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  token: string | null,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetchJson<T>(fetchImpl, url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The owner API of one node, authenticated with its owner token. */
export class NodeClient {
  readonly coreUrl: string;
  readonly mode: 'desktop' | 'browser';
  readonly #token: string;
  readonly #fetch: FetchLike;

  constructor(options: { coreUrl: string; token: string; mode: 'desktop' | 'browser'; fetch: FetchLike }) {
    this.coreUrl = trimSlash(options.coreUrl);
    this.mode = options.mode;
    this.#token = options.token;
    this.#fetch = options.fetch;
  }

  #get<T>(path: string): Promise<T> {
    return requestJson<T>(this.#fetch, `${this.coreUrl}${path}`, 'GET', this.#token);
  }

  #post<T>(path: string, body: unknown = {}): Promise<T> {
    return requestJson<T>(this.#fetch, `${this.coreUrl}${path}`, 'POST', this.#token, body);
  }

  #put<T>(path: string, body: unknown): Promise<T> {
    return requestJson<T>(this.#fetch, `${this.coreUrl}${path}`, 'PUT', this.#token, body);
  }

  #delete<T>(path: string): Promise<T> {
    return requestJson<T>(this.#fetch, `${this.coreUrl}${path}`, 'DELETE', this.#token);
  }

  info(): Promise<NodeInfo> {
    return this.#get<NodeInfo>('/v1/node/info');
  }

  /** A fresh one-time sign-in link for a browser. */
  async uiLink(): Promise<string> {
    return (await this.#post<UiLink>('/v1/node/ui-link')).ui_url;
  }

  async projects(): Promise<ProjectListItem[]> {
    return (await this.#get<{ projects: ProjectListItem[] }>('/v1/node/projects')).projects;
  }

  createProject(input: CreateProjectInput): Promise<CreatedProject> {
    return this.#post<CreatedProject>('/v1/node/projects', input);
  }

  async identities(): Promise<Identity[]> {
    return (await this.#get<{ identities: Identity[] }>('/v1/node/identities')).identities;
  }

  createIdentity(input: CreateIdentityInput): Promise<CreatedIdentity> {
    return this.#post<CreatedIdentity>('/v1/node/identities', input);
  }

  async namespaces(): Promise<Namespace[]> {
    return (await this.#get<{ namespaces: Namespace[] }>('/v1/node/namespaces')).namespaces;
  }

  /** The owner's consent to a namespace, controlled by `controllerDid` or, without it, by a key the node holds. */
  createNamespace(domain: string, controllerDid?: string): Promise<Namespace> {
    const input: CreateNamespaceInput = { domain, ...(controllerDid ? { controller_did: controllerDid } : {}) };
    return this.#post<Namespace>('/v1/node/namespaces', input);
  }

  /** Sets the node up for a person in one step: a namespace, a project and a persistent identity. */
  setup(input: SetupInput): Promise<SetupResult> {
    return this.#post<SetupResult>('/v1/node/setup', input);
  }

  async teams(): Promise<Team[]> {
    return (await this.#get<{ teams: Team[] }>('/v1/node/teams')).teams;
  }

  /** A team whose key this node holds, with an owner member the UI acts through. */
  createTeam(input: CreateTeamInput): Promise<Team> {
    return this.#post<Team>('/v1/node/teams', input);
  }

  async peers(): Promise<Peer[]> {
    return (await this.#get<{ peers: Peer[] }>('/v1/node/peers')).peers;
  }

  /** Adds or replaces the peer for a domain; the node then retries mail waiting for it. */
  setPeer(domain: string, url: string): Promise<Peer> {
    const input: PeerInput = { domain, url };
    return this.#post<Peer>('/v1/node/peers', input);
  }

  removePeer(domain: string): Promise<PeerRemoved> {
    return this.#delete(`/v1/node/peers/${encodeURIComponent(domain)}`);
  }

  tunnel(): Promise<TunnelView> {
    return this.#get<TunnelView>('/v1/node/tunnel');
  }

  saveTunnel(input: TunnelConfigInput): Promise<TunnelView> {
    return this.#put<TunnelView>('/v1/node/tunnel', input);
  }

  /** Starts the tunnel (answers at once, usually `connecting`); 409 without saved settings. */
  startTunnel(): Promise<TunnelView> {
    return this.#post<TunnelView>('/v1/node/tunnel/start');
  }

  /** Stops the tunnel, or cancels a connection under way. */
  stopTunnel(): Promise<TunnelView> {
    return this.#post<TunnelView>('/v1/node/tunnel/stop');
  }

  /**
   * The four team-auth headers for one library or documents request made as the team's owner member (the key
   * stays in the node's custody), and the URL to send it to. Each signature works once.
   */
  signAsTeam(teamId: string, request: TeamRequestToSign, surface: 'library' | 'docs' = 'library'): Promise<SignedRequest> {
    const input: SignInput = { ...request, surface };
    return this.#post<SignedRequest>(`/v1/node/teams/${encodeURIComponent(teamId)}/sign`, input);
  }

  /** A fresh key acting as the identity for 24 h; the UI keeps it in memory only. */
  mintSessionKey(agentId: string): Promise<SessionKey> {
    return this.#post<SessionKey>(`/v1/node/identities/${encodeURIComponent(agentId)}/session-key`);
  }

  /**
   * The node-wide stream of new mail and chat for every identity (no replay: only what arrives
   * while it is open). Reconnects by itself until closed.
   */
  streamWake(handlers: {
    onItem: (item: NodeWakeItem) => void;
    /** A team's library or documents changed, the catalog did, an identity's mail, or the tunnel's state: views re-read what they show. */
    onChange?: (change: NodeChange) => void;
    onState?: (state: StreamState, detail: string | null) => void;
  }): StreamHandle {
    return openStream({
      url: (deadline) => `${this.coreUrl}/v1/node/events/stream?deadline=${encodeURIComponent(deadline)}`,
      token: async () => this.#token,
      fetch: this.#fetch,
      onState: handlers.onState,
      onFrame: (frame) => {
        if (frame.event === 'mail_message' || frame.event === 'chat_message') {
          const item = frameJson<NodeWakeItem>(frame);
          if (item !== null && typeof item.agent_id === 'string') handlers.onItem(item);
        } else if (isNodeChange(frame.event)) {
          const data = frameJson<{ team_id?: unknown; agent_id?: unknown; message_id?: unknown }>(frame);
          handlers.onChange?.({
            kind: frame.event,
            teamId: typeof data?.team_id === 'string' ? data.team_id : null,
            ...(typeof data?.agent_id === 'string' ? { agentId: data.agent_id } : {}),
            ...(typeof data?.message_id === 'string' ? { messageId: data.message_id } : {}),
          });
        }
      },
    });
  }

  /** A client acting as one identity of this node, with session keys from `keys`. */
  asIdentity(agentId: string, keys: SessionKeys): IdentityClient {
    return new IdentityClient({ coreUrl: this.coreUrl, fetch: this.#fetch, keys: keys.source(agentId) });
  }
}

// ---------------------------------------------------------------------------------------------
// Acting as an identity
// ---------------------------------------------------------------------------------------------

/** Where an IdentityClient gets its bearer key. */
export interface KeySource {
  /** A key believed valid (minted when there is none, or it expires within a few minutes). */
  current(): Promise<string>;
  /** A new key, because `stale` was refused; concurrent refusals share one mint. */
  renew(stale: string): Promise<string>;
}

/** Renew a key this long before it expires, so no request races the expiry. */
const KEY_MARGIN_MS = 5 * 60 * 1000;

/**
 * Session keys per identity, minted with the owner token on first use and kept in memory only
 * (never in storage: a reload mints new ones). One mint at a time per identity.
 */
export class SessionKeys {
  readonly #mint: (agentId: string) => Promise<SessionKey>;
  readonly #now: () => number;
  readonly #keys = new Map<string, { key: string; expiresAt: number }>();
  readonly #minting = new Map<string, Promise<string>>();

  constructor(mint: (agentId: string) => Promise<SessionKey>, now: () => number = Date.now) {
    this.#mint = mint;
    this.#now = now;
  }

  async current(agentId: string): Promise<string> {
    const held = this.#keys.get(agentId);
    if (held !== undefined && held.expiresAt - KEY_MARGIN_MS > this.#now()) return held.key;
    return this.#mintOnce(agentId);
  }

  async renew(agentId: string, stale: string): Promise<string> {
    const held = this.#keys.get(agentId);
    // Another request already replaced the refused key: use that one.
    if (held !== undefined && held.key !== stale) return held.key;
    this.#keys.delete(agentId);
    return this.#mintOnce(agentId);
  }

  source(agentId: string): KeySource {
    return { current: () => this.current(agentId), renew: (stale) => this.renew(agentId, stale) };
  }

  /** Forgets every key (sign-out). */
  clear(): void {
    this.#keys.clear();
  }

  #mintOnce(agentId: string): Promise<string> {
    const inFlight = this.#minting.get(agentId);
    if (inFlight !== undefined) return inFlight;
    const promise = this.#mint(agentId)
      .then((minted) => {
        const expiresAt = Date.parse(minted.expires_at);
        this.#keys.set(agentId, { key: minted.api_key, expiresAt: Number.isNaN(expiresAt) ? this.#now() + KEY_MARGIN_MS * 2 : expiresAt });
        return minted.api_key;
      })
      .finally(() => this.#minting.delete(agentId));
    this.#minting.set(agentId, promise);
    return promise;
  }
}

/** Query string from defined values only. */
function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** The identity API (mail, contacts, chat) as one identity, authenticated with a session key. */
export class IdentityClient {
  readonly coreUrl: string;
  readonly #fetch: FetchLike;
  readonly #keys: KeySource;

  constructor(options: { coreUrl: string; fetch: FetchLike; keys: KeySource }) {
    this.coreUrl = trimSlash(options.coreUrl);
    this.#fetch = options.fetch;
    this.#keys = options.keys;
  }

  /** One call; on a 401 a fresh key is minted and the call made once more. */
  async #call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const url = `${this.coreUrl}${path}`;
    const key = await this.#keys.current();
    try {
      return await requestJson<T>(this.#fetch, url, method, key, body);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      return requestJson<T>(this.#fetch, url, method, await this.#keys.renew(key), body);
    }
  }

  inbox(options: InboxQuery = {}): Promise<InboxPage> {
    return this.#call<InboxPage>(
      'GET',
      `/v1/messages/inbox${query({
        limit: options.limit,
        unread_only: options.unreadOnly ? 'true' : undefined,
        before: options.before,
        message_id: options.messageId,
        folder: options.folder,
      })}`,
    );
  }

  /** One message of the inbox by id, or null when it is not (or no longer) there. */
  async message(messageId: string): Promise<MailMessage | null> {
    return (await this.inbox({ messageId, limit: 1 })).messages[0] ?? null;
  }

  sendMail(input: SendMailInput): Promise<SendMailResult> {
    return this.#call<SendMailResult>('POST', '/v1/messages', input);
  }

  /** This identity's mail to other nodes with its delivery state, newest first. */
  async outbound(): Promise<OutboundMail[]> {
    return (await this.#call<OutboundList>('GET', '/v1/messages/outbound')).messages;
  }

  ack(messageId: string): Promise<MailAcknowledged> {
    return this.#call('POST', `/v1/messages/${encodeURIComponent(messageId)}/ack`, {});
  }

  // Mail folders (issue 14).

  /** Everything this identity sent, newest first, one item per recipient. */
  sent(options: { limit?: number; before?: string } = {}): Promise<SentPage> {
    return this.#call<SentPage>('GET', `/v1/messages/sent${query({ limit: options.limit, before: options.before })}`);
  }

  /** Archive (marks it read), back to the inbox, or unread again (back in the inbox). */
  moveMail(messageId: string, action: 'archive' | 'unarchive' | 'unread'): Promise<MailFolderState> {
    return this.#call<MailFolderState>('POST', `/v1/messages/${encodeURIComponent(messageId)}/${action}`, {});
  }

  /** Deletes it from this inbox for good (the sender keeps its copy). */
  deleteMail(messageId: string): Promise<MailDeleted> {
    return this.#call('DELETE', `/v1/messages/${encodeURIComponent(messageId)}`);
  }

  /** The body as HTML, rendered and sanitised by the node (links kept, outside images dropped). */
  async renderedBody(messageId: string): Promise<string> {
    return (await this.#call<RenderedMail>('GET', `/v1/messages/${encodeURIComponent(messageId)}/rendered`)).body_html;
  }

  async contacts(): Promise<Contact[]> {
    return (await this.#call<{ contacts: Contact[] }>('GET', '/v1/contacts')).contacts;
  }

  addContact(address: string, label = ''): Promise<Contact> {
    return this.#call<Contact>('POST', '/v1/contacts', { contact_address: address, label });
  }

  async chatSessions(): Promise<ChatSessionsPage['sessions']> {
    return (await this.#call<ChatSessionsPage>('GET', '/v1/chat/sessions')).sessions;
  }

  /** One page of sessions, newest activity first; `before` is the previous page's `next_before`. */
  chatSessionsPage(options: { limit: number; before?: string | null }): Promise<ChatSessionsPage> {
    return this.#call<ChatSessionsPage>('GET', `/v1/chat/sessions${query({ limit: options.limit, before: options.before ?? undefined })}`);
  }

  pending(): Promise<Pending> {
    return this.#call<Pending>('GET', '/v1/chat/pending');
  }

  /** The newest `limit` messages of a session, oldest first. */
  async chatHistory(sessionId: string, limit = 200): Promise<ChatMessage[]> {
    return (await this.chatConversation(sessionId, limit)).messages;
  }

  /** The newest `limit` messages, oldest first, with each participant's read position and membership. */
  chatConversation(sessionId: string, limit = 200): Promise<ChatHistory> {
    return this.#call<ChatHistory>('GET', `/v1/chat/sessions/${encodeURIComponent(sessionId)}/messages${query({ limit })}`);
  }

  startChat(input: StartChatInput): Promise<StartChatResult> {
    return this.#call<StartChatResult>('POST', '/v1/chat/sessions', input);
  }

  /** `rejoining` (ours) takes me back into a chat I left; it is only sent when set. */
  sendChat(sessionId: string, body: string, options: { leaving?: boolean; rejoining?: boolean } = {}): Promise<SendChatResult> {
    return this.#call<SendChatResult>('POST', `/v1/chat/sessions/${encodeURIComponent(sessionId)}/messages`, {
      body,
      leaving: options.leaving ?? false,
      ...(options.rejoining === true ? { rejoining: true } : {}),
    });
  }

  markChatRead(sessionId: string, upToMessageId: string): Promise<ChatReadMarked> {
    return this.#call('POST', `/v1/chat/sessions/${encodeURIComponent(sessionId)}/read`, { up_to_message_id: upToMessageId });
  }

  /**
   * A session's live stream: new messages and the others' read receipts. Each reconnect asks
   * for what was stored after `after()` (the newest message seen), so nothing falls in the gap.
   */
  streamSession(
    sessionId: string,
    handlers: {
      after: () => string | null;
      onEvent: (event: SessionEvent) => void;
      onState?: (state: StreamState, detail: string | null) => void;
    },
  ): StreamHandle {
    let held: string | null = null;
    return openStream({
      url: (deadline) => {
        const after = handlers.after();
        return `${this.coreUrl}/v1/chat/sessions/${encodeURIComponent(sessionId)}/stream${query({ deadline, after: after ?? undefined })}`;
      },
      token: async (renew) => (held = renew && held !== null ? await this.#keys.renew(held) : await this.#keys.current()),
      fetch: this.#fetch,
      onState: handlers.onState,
      onFrame: (frame: SseFrame) => {
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

// ---------------------------------------------------------------------------------------------
// Getting a session
// ---------------------------------------------------------------------------------------------

/** The parts of `window` the session logic touches, so tests can pass fakes. */
export interface BrowserEnv {
  svc?: SvcBridge | undefined;
  location: { origin: string; pathname: string; search: string; hash: string };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  fetch: FetchLike;
}

export function browserEnv(): BrowserEnv {
  return {
    svc: window.svc,
    location: window.location,
    history: window.history,
    storage: window.localStorage,
    fetch: (input, init) => window.fetch(input, init),
  };
}

/** localStorage key of the owner token: one per node origin (several nodes, one browser). */
export function tokenStorageKey(origin: string): string {
  return `svc-node.owner-token@${origin}`;
}

/**
 * Takes a `#code=<one-time code>` out of the address bar. Returns the code, or null when the
 * fragment holds none; the fragment is removed either way it had one, so the code can neither be
 * bookmarked nor end up in the router. Must run before the router reads the location.
 */
export function takeCodeFromFragment(env: Pick<BrowserEnv, 'location' | 'history'>): string | null {
  const hash = env.location.hash.replace(/^#/, '');
  if (hash === '' || hash.startsWith('/')) return null;
  const code = new URLSearchParams(hash).get('code');
  if (code === null) return null;
  env.history.replaceState(null, '', env.location.pathname + env.location.search);
  return code.trim() === '' ? null : code;
}

export type Connection =
  /** `linkProblem`: a sign-in link that did not work, while a saved session may still (it is checked next). */
  | { kind: 'connected'; client: NodeClient; linkProblem?: string | null }
  | { kind: 'signed-out'; reason: string | null };

/**
 * Why a sign-in link did not work, in words that say how to get a fresh one. The node answers
 * 401 for a used (or unknown) code and for an expired one, and says which (server/auth/owner.ts).
 */
export function linkRefusal(error: unknown): string {
  if (!(error instanceof ApiError) || error.status !== 401) return error instanceof Error ? error.message : String(error);
  const fresh = 'For a fresh one, run `svc-node ui` where the node runs (or use Settings → Open in a browser in a window already signed in).';
  return /expired/i.test(error.message)
    ? `That sign-in link has expired: links work for a few minutes after they are made. ${fresh}`
    : `That sign-in link was already used: each link works once. ${fresh}`;
}

/** Exchanges a one-time code for the owner token (`POST /v1/node/session`). */
export async function exchangeCode(fetchImpl: FetchLike, origin: string, code: string): Promise<string> {
  const body = await requestJson<Partial<OwnerSession>>(fetchImpl, `${origin}/v1/node/session`, 'POST', null, {
    code,
  });
  if (typeof body.owner_token !== 'string' || body.owner_token === '') {
    throw new ApiError(500, 'The node did not return a session token.');
  }
  return body.owner_token;
}

/**
 * Finds the owner token (desktop bridge, one-time code, or the one saved for this origin) and
 * returns a client for it. It does not call the node beyond the code exchange: the caller checks
 * the session with `client.info()` and calls `forgetSession` when that answers 401.
 */
export async function connect(env: BrowserEnv, code: string | null): Promise<Connection> {
  if (env.svc !== undefined) {
    return {
      kind: 'connected',
      client: new NodeClient({ coreUrl: env.svc.coreUrl, token: env.svc.ownerToken, mode: 'desktop', fetch: env.fetch }),
    };
  }
  const origin = env.location.origin;
  const key = tokenStorageKey(origin);
  let reason: string | null = null;
  if (code !== null) {
    try {
      env.storage.setItem(key, await exchangeCode(env.fetch, origin, code));
    } catch (error) {
      reason = linkRefusal(error);
    }
  }
  const token = env.storage.getItem(key);
  if (token === null || token === '') return { kind: 'signed-out', reason };
  return { kind: 'connected', client: new NodeClient({ coreUrl: origin, token, mode: 'browser', fetch: env.fetch }), linkProblem: reason };
}

/** Drops the saved browser session for this origin (sign out, or a token the node no longer knows). */
export function forgetSession(env: Pick<BrowserEnv, 'storage' | 'location'>): void {
  env.storage.removeItem(tokenStorageKey(env.location.origin));
}
