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
import type { SvcBridge } from '../../../preload/api.d.ts';
import { ApiError, errorIssues, errorMessage } from './errors.ts';
import { frameJson, openStream } from './sse.ts';
import type { FetchLike, SseFrame, StreamHandle, StreamState } from './sse.ts';

export type { FetchLike, StreamHandle, StreamState };

// ---------------------------------------------------------------------------------------------
// Wire types (owner API, /v1/node/...)
// ---------------------------------------------------------------------------------------------

export type Lifetime = 'ephemeral' | 'persistent';
export type IdentityStatus = 'active' | 'archived' | 'replaced' | 'deleted';
export type Reachability = 'public' | 'contacts-only';
export type VerificationStatus = 'unverified' | 'verified' | 'revoked';
export type CustodyBackend = 'safe-storage' | 'keyring' | 'passphrase' | 'key-file';

export interface NodeInfo {
  node_id: string;
  version: string;
  core_url: string;
  library_url: string;
  docs_url: string;
  ui_url: string | null;
  public_url: string | null;
  data_dir: string;
  custody_backend: CustodyBackend | string;
}

export interface Project {
  project_id: string;
  slug: string;
  name: string | null;
  namespace: string | null;
  identity_count: number;
  created_at: string;
}

export interface CreatedProject {
  project_id: string;
  slug: string;
  api_key: string;
  namespace: string | null;
}

export interface Identity {
  identity_id: string;
  agent_id: string;
  project_id: string;
  project_slug: string;
  alias: string;
  name: string;
  lifetime: Lifetime;
  status: IdentityStatus;
  custody: string;
  did_key: string;
  did_aw: string | null;
  address: string | null;
  address_reachability: Reachability;
  created_at: string;
}

export interface CreatedIdentity {
  status: 'ok';
  identity_id: string;
  agent_id: string;
  project_id: string;
  project_slug: string;
  alias: string;
  name: string;
  lifetime: 'persistent';
  did: string;
  stable_id: string;
  custody: string;
  address: string | null;
  address_reachability: Reachability;
  namespace: string | null;
  api_key: string;
  created_at: string;
  server_url: string;
}

/** Why a namespace exists on this node: the owner's consent, DNS proof, or neither (registered before that rule). */
export type NamespaceAuthority = 'owner' | 'dns' | 'unproven';

export interface Namespace {
  domain: string;
  controller_did: string;
  verification_status: VerificationStatus;
  node_controlled: boolean;
  authority: NamespaceAuthority;
  address_count: number;
  created_at: string;
}

export interface CreateProjectInput {
  slug: string;
  name?: string;
  namespace?: string;
}

export interface CreateIdentityInput {
  project_id: string;
  name: string;
  address_reachability?: Reachability;
}

/** `POST /v1/node/setup`: a person's first identity, in one step (see SetupView). */
export interface SetupInput {
  name: string;
  /** A domain of their own; without one the address is under the node's own `.local` namespace. */
  domain?: string;
}

export interface SetupResult {
  /** False when the node was already set up with this very name and domain. */
  created: boolean;
  identity: Identity;
  /** `<domain>/<name>`: the address to share. */
  address: string;
  project: { project_id: string; slug: string };
  /** `local`: the node's own `.local` namespace. */
  namespace: { domain: string; local: boolean };
}

/** A team whose key this node holds (`GET /v1/node/teams`); `team_id` is `<name>:<domain>`. */
export interface Team {
  team_id: string;
  name: string;
  domain: string;
  team_did_key: string;
  owner_certificate_id: string;
  member_count: number;
  created_at: string;
}

export interface CreateTeamInput {
  name: string;
  domain: string;
}

/** A peer (`/v1/node/peers`): the node that answers for a domain, when DNS does not say. */
export interface Peer {
  domain: string;
  /** The peer node's http(s) origin. */
  url: string;
  created_at: string;
  updated_at: string;
}

export type TunnelState = 'stopped' | 'connecting' | 'up' | 'reconnecting' | 'failed';

/** What the tunnel is doing now. */
export interface TunnelStatus {
  state: TunnelState;
  /** The URL other nodes reach this node at, while up. */
  public_url: string | null;
  /** Why it is in this state, in words (the last error, the host it is connecting to). */
  detail: string | null;
  since: string;
}

/** The saved SSH tunnel settings. */
export interface TunnelConfig {
  host: string;
  port: number;
  username: string;
  remote_port: number;
  remote_bind_host: string;
  public_url: string | null;
  host_key_sha256: string | null;
}

/** `GET /v1/node/tunnel`: the settings, the node's SSH public key, and the status. */
export interface TunnelView {
  provider: 'ssh';
  config: TunnelConfig | null;
  /** An authorized_keys line ("ssh-ed25519 AAAA... svc-node@..."); the private key stays on the node. */
  public_key: string;
  status: TunnelStatus;
}

/** `PUT /v1/node/tunnel`. */
export interface TunnelConfigInput {
  host: string;
  port?: number;
  username: string;
  remote_port: number;
  remote_bind_host?: string;
  public_url?: string;
  host_key_sha256?: string;
}

/** What the owner asks the node to sign: the exact method, request target and body to be sent. */
export interface TeamRequestToSign {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The request target as it will be sent, query string included. */
  path: string;
  /** The exact body text that will be sent, if any. */
  body?: string;
  /** Documents: the agent_id of the identity the app acts as, signed into the envelope and recorded on versions. */
  acting_as?: string;
}

/** `POST /v1/node/teams/{team_id}/sign`: headers for one request, and where to send it. */
export interface SignedTeamRequest {
  headers: Record<string, string>;
  url: string;
}

/** `POST /v1/node/identities/{agent_id}/session-key`: a key acting as one identity for 24 h. */
export interface SessionKey {
  api_key: string;
  api_key_id: string;
  expires_at: string;
}

/** One frame of the owner's node-wide stream: new mail or chat for one identity on this node. */
export interface NodeWakeItem {
  agent_id: string;
  type: 'mail_message' | 'chat_message';
  message_id: string;
  from_alias: string;
  from_address: string | null;
  subject?: string;
  priority?: string;
  session_id?: string;
  preview?: string;
  /** Chat: the message said its sender was leaving, or took its sender back into the chat. */
  sender_leaving?: boolean;
  sender_rejoining?: boolean;
  created_at: string;
}

// ---------------------------------------------------------------------------------------------
// Wire types (identity API: /v1/messages, /v1/contacts, /v1/chat)
// ---------------------------------------------------------------------------------------------

/** A nudge on the owner feed: what changed (never the data itself). */
export interface NodeChange {
  kind: (typeof NODE_CHANGES)[number];
  /** The team, for library and documents changes (null for the catalog and the tunnel). */
  teamId: string | null;
  /** For mail changes: whose message, and which (archived, unarchived, deleted, marked read or unread). */
  agentId?: string;
  messageId?: string;
}

/** The owner feed's nudges (what changed, never the data itself). */
const NODE_CHANGES = ['library_changed', 'docs_changed', 'catalog_changed', 'tunnel_changed', 'teams_changed', 'mail_changed'] as const;
const isNodeChange = (event: string): event is NodeChange['kind'] => (NODE_CHANGES as readonly string[]).includes(event);

/** What the node found checking a message's signature over its signed_payload with from_did. */
export type SignatureStatus = 'verified' | 'unverified' | 'failed';

/**
 * What the sender's address can be trusted as: DNS names its namespace's controller (`verified`),
 * this node's owner registered the namespace (`owner`), or nobody checked (`unverified`).
 */
export type NamespaceTrust = 'verified' | 'owner' | 'unverified';

export type Priority = 'low' | 'normal' | 'high' | 'urgent';
export const PRIORITIES: readonly Priority[] = ['low', 'normal', 'high', 'urgent'];

/**
 * Where an inbox mail came from: an identity on this node, another node (checked on arrival), or
 * this node itself telling that a delivery to another node failed.
 */
export type MailOrigin = 'local' | 'remote' | 'bounce';

/** One mail in an inbox, as the node stored and signed it. */
export interface MailMessage {
  message_id: string;
  origin: MailOrigin;
  /** The sending node's origin, for remote mail. */
  from_node: string | null;
  /** Null for mail from another node, and for bounces. */
  from_agent_id: string | null;
  from_alias: string;
  from_address: string | null;
  /** The did:key the sender signed with. */
  from_did: string;
  from_stable_id: string | null;
  to_alias: string;
  to_address: string | null;
  to_did: string;
  to_stable_id: string | null;
  subject: string;
  body: string;
  priority: Priority;
  signature: string;
  signed_payload: string;
  created_at: string;
  /** When the recipient acknowledged it; null while unread. */
  read_at: string | null;
  is_contact: boolean;
  /** The node's check of the signature against from_did (server-side Ed25519). */
  signature_status?: SignatureStatus;
  /** Null when the sender has no address (or for a bounce). */
  from_namespace_trust?: NamespaceTrust | null;
  /** Ours: when the recipient archived it; null while it is in the inbox. */
  archived_at?: string | null;
}

export interface InboxPage {
  messages: MailMessage[];
  has_more: boolean;
  next_before: string | null;
}

export interface InboxQuery {
  limit?: number;
  unreadOnly?: boolean;
  before?: string;
  messageId?: string;
  /** Ours: `archive` lists what was archived; the default is the inbox. */
  folder?: 'inbox' | 'archive';
}

/** Ours: `GET /v1/messages/sent`: one mail this identity sent to one recipient, with its delivery state. */
export interface SentMail {
  message_id: string;
  /** `local`: to an identity on this node; `remote`: to another node. */
  destination: 'local' | 'remote';
  /** The recipient as it was addressed. */
  to: string;
  to_alias: string | null;
  to_address: string | null;
  to_did: string | null;
  to_stable_id: string | null;
  subject: string;
  body: string;
  priority: Priority;
  signature: string;
  signed_payload: string;
  created_at: string;
  status: OutboundStatus;
  attempts: number | null;
  next_attempt_at: string | null;
  last_error: string | null;
  delivered_to: string | null;
  settled_at: string | null;
}

export interface SentPage {
  messages: SentMail[];
  has_more: boolean;
  next_before: string | null;
}

/** Ours: where a message of the inbox is after archive, unarchive or mark unread. */
export interface MailFolderState {
  message_id: string;
  folder: 'inbox' | 'archive';
  archived_at: string | null;
  read_at: string | null;
}

/** A send: recipients go in the list for their kind (address, alias in my project, did). */
export interface SendMailInput {
  to_addresses?: string[];
  to_aliases?: string[];
  to_dids?: string[];
  subject: string;
  body: string;
  priority: Priority;
}

/** `delivered`: in the recipient's inbox on this node; `queued`: on its way to another node. */
export type SendStatus = 'delivered' | 'queued';

export interface SendMailResult {
  message_id: string;
  /** `queued` when any recipient is on another node. */
  status: SendStatus;
  delivered_at: string;
  messages: {
    message_id: string;
    to: string;
    to_alias: string | null;
    to_address: string | null;
    to_did: string;
    status: SendStatus;
  }[];
}

export type OutboundStatus = 'queued' | 'delivered' | 'bounced';

/** `GET /v1/messages/outbound`: one mail or chat message of the current identity to another node. */
export interface OutboundMail {
  message_id: string;
  /** Mail, or a chat message (its `subject` is then "Chat: " and the start of the message). */
  kind: 'mail' | 'chat';
  to_address: string;
  to_domain: string;
  status: OutboundStatus;
  attempts: number;
  next_attempt_at: string;
  /** Why the last attempt failed (or why it bounced). */
  last_error: string | null;
  /** The node that took it. */
  delivered_to: string | null;
  created_at: string;
  settled_at: string | null;
  subject: string;
}

export type { Contact };

export interface ChatSession {
  session_id: string;
  /** The other participants' aliases, addresses (or aliases) and dids, in the same order. */
  participants: string[];
  participant_addresses: string[];
  participant_dids: string[];
  created_at: string;
  last_activity: string;
  /** Another participant has the session open right now. */
  sender_waiting: boolean;
  unread_count: number;
  /** Ours: the newest message, for the row's preview (null for a session without one). */
  last_message?: ChatLastMessage | null;
  /** Ours: the other participants (aliases) whose latest message said they were leaving. */
  participants_left?: string[];
  /** Ours: my latest message here said I was leaving. */
  you_left?: boolean;
}

/** `GET /v1/chat/sessions?limit&before`: one page of sessions, newest activity first. */
export interface ChatSessionsPage {
  sessions: ChatSession[];
  has_more: boolean;
  /** Pass as `before` for the next page; null on the last one. */
  next_before: string | null;
}

/** A session's newest message, as the session list shows it. */
export interface ChatLastMessage {
  message_id: string;
  from_agent_id: string | null;
  from_alias: string;
  from_address: string | null;
  /** The first 200 characters of the body. */
  preview: string;
  created_at: string;
  sender_leaving: boolean;
  sender_rejoining: boolean;
}

/** A participant in a session's history: how far it has read and whether it left. */
export interface ChatMember {
  agent_id: string | null;
  alias: string;
  address: string | null;
  did: string;
  last_read_message_id: string | null;
  read_at: string | null;
  left_at: string | null;
}

/** `GET /v1/chat/sessions/{id}/messages`: the messages, and (ours) each participant's state. */
export interface ChatHistory {
  messages: ChatMessage[];
  participants?: ChatMember[];
}

export interface PendingChat {
  session_id: string;
  participants: string[];
  participant_addresses: string[];
  participant_dids: string[];
  last_message: string | null;
  last_message_id: string | null;
  last_from: string | null;
  unread_count: number;
  last_activity: string;
  sender_waiting: boolean;
  time_remaining_seconds: number | null;
}

export interface Pending {
  pending: PendingChat[];
  /** Unread mail. */
  messages_waiting: number;
}

export interface ChatMessage {
  message_id: string;
  session_id: string;
  /** Null when the sender is in another project. */
  from_agent_id: string | null;
  from_alias: string;
  from_address: string | null;
  from_did: string;
  from_stable_id: string | null;
  to: string;
  to_did: string;
  body: string;
  timestamp: string;
  created_at: string;
  sender_leaving: boolean;
  /** Ours: the sender came back to a chat it had left with this message. */
  sender_rejoining?: boolean;
  hang_on: boolean;
  reply_to: string | null;
  signature: string;
  /** The node's check of the signature against from_did (server-side Ed25519). */
  signature_status?: SignatureStatus;
  /** Null when the sender has no address. */
  from_namespace_trust?: NamespaceTrust | null;
}

export interface StartChatInput {
  to_addresses: string[];
  to_aliases: string[];
  to_dids: string[];
  message: string;
}

export interface StartChatResult {
  session_id: string;
  message_id: string;
  participants: { agent_id: string | null; alias: string; address: string | null; did: string }[];
  targets_connected: string[];
  targets_left: string[];
}

export interface SendChatResult {
  message_id: string;
  session_id: string;
  delivered: true;
}

export interface ReadReceipt {
  type: 'read_receipt';
  session_id: string;
  reader_alias: string;
  up_to_message_id: string;
  timestamp: string;
}

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
    return (await this.#post<{ ui_url: string }>('/v1/node/ui-link')).ui_url;
  }

  async projects(): Promise<Project[]> {
    return (await this.#get<{ projects: Project[] }>('/v1/node/projects')).projects;
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
    return this.#post<Namespace>('/v1/node/namespaces', { domain, ...(controllerDid ? { controller_did: controllerDid } : {}) });
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
    return this.#post<Peer>('/v1/node/peers', { domain, url });
  }

  removePeer(domain: string): Promise<{ domain: string; removed: true }> {
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
  signAsTeam(teamId: string, request: TeamRequestToSign, surface: 'library' | 'docs' = 'library'): Promise<SignedTeamRequest> {
    return this.#post<SignedTeamRequest>(`/v1/node/teams/${encodeURIComponent(teamId)}/sign`, { ...request, surface });
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
    return (await this.#call<{ messages: OutboundMail[] }>('GET', '/v1/messages/outbound')).messages;
  }

  ack(messageId: string): Promise<{ message_id: string; acknowledged_at: string }> {
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
  deleteMail(messageId: string): Promise<{ message_id: string; deleted_at: string }> {
    return this.#call('DELETE', `/v1/messages/${encodeURIComponent(messageId)}`);
  }

  /** The body as HTML, rendered and sanitised by the node (links kept, outside images dropped). */
  async renderedBody(messageId: string): Promise<string> {
    return (await this.#call<{ body_html: string }>('GET', `/v1/messages/${encodeURIComponent(messageId)}/rendered`)).body_html;
  }

  async contacts(): Promise<Contact[]> {
    return (await this.#call<{ contacts: Contact[] }>('GET', '/v1/contacts')).contacts;
  }

  addContact(address: string, label = ''): Promise<Contact> {
    return this.#call<Contact>('POST', '/v1/contacts', { contact_address: address, label });
  }

  async chatSessions(): Promise<ChatSession[]> {
    return (await this.#call<{ sessions: ChatSession[] }>('GET', '/v1/chat/sessions')).sessions;
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

  markChatRead(sessionId: string, upToMessageId: string): Promise<{ success: true; messages_marked: number }> {
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
  const body = await requestJson<{ owner_token?: unknown }>(fetchImpl, `${origin}/v1/node/session`, 'POST', null, {
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
