/**
 * The owner API of one node (/v1/node/...), authenticated with its owner token: projects,
 * identities, namespaces, teams, peers, the tunnel, the owner feed, and what the UI needs to act
 * as an identity (session keys, identity.ts) or as a team (signatures, team-request.ts). Views and
 * stores never call `fetch` themselves: every request goes through a client of renderer/src/api/,
 * and every failure becomes an `ApiError` whose message is the node's detail in plain words.
 * How the UI gets its credential (the desktop's owner token, a browser's session): connect.ts.
 */
// The wire contract (contract/) is written once, for the node and for this client, so the two
// cannot drift apart.
import type { NodeAgentPresence, NodeChangeKind, NodeWakeItem } from '../../../contract/core/events.ts';
import type { CreatedIdentity } from '../../../contract/core/identities.ts';
import type { Namespace } from '../../../contract/core/namespaces.ts';
import type { EncryptionKeyRotated } from '../../../contract/core/encryption-keys.ts';
import type { CreateIdentityInput, NodeIdentity, NodeSettingsInput, SessionKey } from '../../../contract/node/identities.ts';
import type { CreatedProject, CreateNamespaceInput, CreateProjectInput, NodeInfo, ProjectListItem, UiLink } from '../../../contract/node/owner.ts';
import type { Peer, PeerInput, PeerRemoved } from '../../../contract/node/peers.ts';
import type { BackupResult, BackupScheduleInput, BackupStatus, StartBackupInput } from '../../../contract/node/backups.ts';
import type { Device, DeviceLinkCreated, DeviceList } from '../../../contract/node/devices.ts';
import type { CreateRecoveryKitInput, RecoveryKitCreated, RecoveryKitStatus } from '../../../contract/node/recovery-kit.ts';
import type { OwnerSessionList, OwnerSessionView, RevokedSessions } from '../../../contract/node/sessions.ts';
import type { SetupInput, SetupResult } from '../../../contract/node/setup.ts';
import type {
  CreateTeamInput,
  InviteCancelled,
  InviteInput,
  InviteList,
  MemberList,
  Revoked,
  SignedRequest,
  SignInput,
  Team,
  TeamInvite,
} from '../../../contract/node/teams.ts';
import type { TunnelConfigInput, TunnelView } from '../../../contract/node/tunnel.ts';
import { requestJson, trimSlash } from './http.ts';
import { IdentityClient } from './identity.ts';
import type { SessionKeys } from './identity-keys.ts';
import { searchPath, type SearchParams, type SearchResults } from './search.ts';
import { frameJson, openStream } from './sse.ts';
import type { FetchLike, StreamHandle, StreamState } from './sse.ts';

// ---------------------------------------------------------------------------------------------
// Wire types (owner API; identities, namespaces; the owner feed): the contract's, contract/core/
// and contract/node/, re-exported for the views and stores
// ---------------------------------------------------------------------------------------------

export type { Identity, CreatedIdentity, IdentityStatus, Lifetime, Reachability } from '../../../contract/core/identities.ts';
/** An identity as the owner's list shows it, with its end-to-end encryption key's health. */
export type { NodeIdentity };
export type { EncryptionKeyRotated, EncryptionKeyState, EncryptionKeySummary } from '../../../contract/core/encryption-keys.ts';
export type { Namespace, NamespaceAuthority, VerificationStatus } from '../../../contract/core/namespaces.ts';
/** What a sender's address can be trusted as (a mail's or chat message's `from_namespace_trust`). */
export type { NamespaceTrust } from '../../../contract/core/namespaces.ts';
export type { NodeInfo, ProjectListItem, CreatedProject, CreateProjectInput, CreateIdentityInput, SessionKey, SetupInput, SetupResult };
export type { Team, CreateTeamInput, SignedRequest as SignedTeamRequest, Peer, PeerRemoved };
export type { OwnerSessionList, OwnerSessionView, RevokedSessions };
export type { RecoveryKitCreated, RecoveryKitStatus };
export type { BackupResult, BackupStatus };
/** A device that holds this node's identities, and the one-time code a new one joins with. */
export type { Device, DeviceLinkCreated };
export type { InviteCancelled, InviteInput, InviteList, MemberList, Revoked, TeamInvite };
export type { ListedMember, PendingInvite } from '../../../contract/node/teams.ts';
export type { TunnelState, TunnelStatus, TunnelConfig, TunnelView, TunnelConfigInput } from '../../../contract/node/tunnel.ts';
/** The owner feed's new mail and chat for one identity on this node. */
export type { NodeChatWake, NodeMailWake, NodeWakeItem } from '../../../contract/core/events.ts';
/** The owner feed's `agent.online` / `agent.offline`: an identity's presence changed. */
export type { NodeAgentPresence };

/** What the owner asks the node to sign: the exact method, request target and body to be sent (and, for documents, who the app acts as). */
export type TeamRequestToSign = Omit<SignInput, 'surface'>;

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
  devices_changed: true,
  mail_changed: true,
  backups_changed: true,
};
const isNodeChange = (event: string): event is NodeChangeKind => Object.hasOwn(NODE_CHANGES, event);

const PRESENCE_FRAMES: Record<NodeAgentPresence['type'], true> = { 'agent.online': true, 'agent.offline': true };
const isPresence = (event: string): event is NodeAgentPresence['type'] => Object.hasOwn(PRESENCE_FRAMES, event);

const teamPath = (teamId: string): string => `/v1/node/teams/${encodeURIComponent(teamId)}`;

// ---------------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------------

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

  #patch<T>(path: string, body: unknown): Promise<T> {
    return requestJson<T>(this.#fetch, `${this.coreUrl}${path}`, 'PATCH', this.#token, body);
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

  /** The owner's live browser sessions, newest first (this window's marked `current`), and their limits. */
  sessions(): Promise<OwnerSessionList> {
    return this.#get<OwnerSessionList>('/v1/node/sessions');
  }

  /** Ends a browser session at once. */
  revokeSession(sessionId: string): Promise<RevokedSessions> {
    return this.#delete<RevokedSessions>(`/v1/node/sessions/${encodeURIComponent(sessionId)}`);
  }

  /** Ends every browser session but this window's. */
  revokeOtherSessions(): Promise<RevokedSessions> {
    return this.#post<RevokedSessions>('/v1/node/sessions/revoke-others');
  }

  /** When the last recovery kit was made, and whether a key changed since (then a new kit is due). */
  recoveryKitStatus(): Promise<RecoveryKitStatus> {
    return this.#get<RecoveryKitStatus>('/v1/node/recovery-kit');
  }

  /** A recovery kit sealed under `passphrase`, made inside the node: its file's text, to be saved off this machine. */
  createRecoveryKit(passphrase: string): Promise<RecoveryKitCreated> {
    const input: CreateRecoveryKitInput = { passphrase };
    return this.#post<RecoveryKitCreated>('/v1/node/recovery-kit', input);
  }

  /** When the last backup was written and where, the schedule the node keeps, and the backup being written now. */
  backups(): Promise<BackupStatus> {
    return this.#get<BackupStatus>('/v1/node/backups');
  }

  /** Cancels the backup being written; the status once it stopped (a 404 when none was). */
  cancelBackup(): Promise<BackupStatus> {
    return this.#delete<BackupStatus>('/v1/node/backups/running');
  }

  /** Backs the node up now into the folder `to` (an absolute path on the node's machine). */
  backUp(to: string): Promise<BackupResult> {
    const input: StartBackupInput = { to };
    return this.#post<BackupResult>('/v1/node/backups', input);
  }

  /** Backs up into `to` every `everyHours` hours; 0 stops the schedule. */
  scheduleBackups(to: string, everyHours: number): Promise<BackupStatus> {
    const input: BackupScheduleInput = { to, every_hours: everyHours };
    return this.#put<BackupStatus>('/v1/node/backups/schedule', input);
  }

  /** The devices that hold this node's identities, this one among them (revoked ones too). */
  async devices(): Promise<Device[]> {
    return (await this.#get<DeviceList>('/v1/node/devices')).devices;
  }

  /** A one-time code a new device joins with, valid ten minutes; the code is in this answer only. */
  linkDevice(): Promise<DeviceLinkCreated> {
    return this.#post<DeviceLinkCreated>('/v1/node/devices/link');
  }

  /** Revokes another device: it receives nothing from this node from then on. */
  revokeDevice(deviceId: string): Promise<Device> {
    return this.#delete<Device>(`/v1/node/devices/${encodeURIComponent(deviceId)}`);
  }

  async projects(): Promise<ProjectListItem[]> {
    return (await this.#get<{ projects: ProjectListItem[] }>('/v1/node/projects')).projects;
  }

  createProject(input: CreateProjectInput): Promise<CreatedProject> {
    return this.#post<CreatedProject>('/v1/node/projects', input);
  }

  async identities(): Promise<NodeIdentity[]> {
    return (await this.#get<{ identities: NodeIdentity[] }>('/v1/node/identities')).identities;
  }

  /** A new signing key for a custodial identity: the retiring key signs the did:svc log's entry and is destroyed. */
  rotateSigningKey(agentId: string): Promise<{ new_did: string }> {
    return this.#post<{ new_did: string }>(`/v1/node/identities/${encodeURIComponent(agentId)}/rotate`);
  }

  /** A fresh end-to-end encryption key for a custodial identity; the old one stays in custody, so old messages stay readable. */
  rotateEncryptionKey(agentId: string): Promise<EncryptionKeyRotated> {
    return this.#post<EncryptionKeyRotated>(`/v1/node/identities/${encodeURIComponent(agentId)}/encryption-key/rotate`);
  }

  /** The settings the owner decides for an identity (whether it accepts plaintext mail); the identity as the list shows it. */
  updateIdentity(agentId: string, settings: NodeSettingsInput): Promise<NodeIdentity> {
    return this.#patch<NodeIdentity>(`/v1/node/identities/${encodeURIComponent(agentId)}`, settings);
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

  /** A team's member certificates with their presence (revoked ones too), and the scopes a certificate may hold. */
  members(teamId: string): Promise<MemberList> {
    return this.#get<MemberList>(`${teamPath(teamId)}/members`);
  }

  /** Revokes a member's certificate: its requests are refused, its streams end, its editable present links close. */
  revokeMember(teamId: string, certificateId: string): Promise<Revoked> {
    return this.#post<Revoked>(`${teamPath(teamId)}/members/${encodeURIComponent(certificateId)}/revoke`);
  }

  /** A one-time join code for an agent that makes its own key; the code is in this answer only. */
  invite(teamId: string, input: InviteInput): Promise<TeamInvite> {
    return this.#post<TeamInvite>(`${teamPath(teamId)}/invites`, input);
  }

  /** The invites not yet redeemed, cancelled or expired (never their codes). */
  invites(teamId: string): Promise<InviteList> {
    return this.#get<InviteList>(`${teamPath(teamId)}/invites`);
  }

  cancelInvite(teamId: string, inviteId: string): Promise<InviteCancelled> {
    return this.#delete<InviteCancelled>(`${teamPath(teamId)}/invites/${encodeURIComponent(inviteId)}`);
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
    return this.#post<SignedRequest>(`${teamPath(teamId)}/sign`, input);
  }

  /**
   * Full-text search over everything this node holds (mail, chat, documents, shelf profiles,
   * catalog blueprints), narrowed by `params` (one identity's mail, one team's documents…).
   */
  search(params: SearchParams): Promise<SearchResults> {
    return this.#get<SearchResults>(searchPath(params));
  }

  /** A fresh key acting as the identity for 24 h; the UI keeps it in memory only. */
  mintSessionKey(agentId: string): Promise<SessionKey> {
    return this.#post<SessionKey>(`/v1/node/identities/${encodeURIComponent(agentId)}/session-key`);
  }

  /**
   * The node-wide stream of new mail and chat for every identity, change nudges and presence (no
   * replay: only what arrives while it is open). Reconnects by itself until closed. A `reset`
   * frame (the node could not replay what was missed) asks for a reload, as a reconnect does.
   */
  streamWake(handlers: {
    onItem: (item: NodeWakeItem) => void;
    /** A team's library or documents changed, the catalog did, an identity's mail, the tunnel's state or the devices: views re-read what they show. */
    onChange?: (change: NodeChange) => void;
    /** An identity of this node came online or went offline (the Teams view's presence dots). */
    onPresence?: (presence: NodeAgentPresence) => void;
    onState?: (state: StreamState, detail: string | null) => void;
    /** The node could not send everything since the stream's last position (`reset`): reload what is shown. */
    onReset?: () => void;
  }): StreamHandle {
    return openStream({
      url: (deadline) => `${this.coreUrl}/v1/node/events/stream?deadline=${encodeURIComponent(deadline)}`,
      token: async () => this.#token,
      fetch: this.#fetch,
      onState: handlers.onState,
      onFrame: (frame) => {
        if (frame.event === 'reset') {
          handlers.onReset?.();
        } else if (frame.event === 'mail_message' || frame.event === 'chat_message') {
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
        } else if (isPresence(frame.event)) {
          const presence = frameJson<NodeAgentPresence>(frame);
          // The frame's name says which way, whatever its body claims.
          if (presence !== null && typeof presence.agent_id === 'string')
            handlers.onPresence?.({ ...presence, type: frame.event, online: frame.event === 'agent.online' });
        }
      },
    });
  }

  /** A client acting as one identity of this node, with session keys from `keys`. */
  asIdentity(agentId: string, keys: SessionKeys): IdentityClient {
    return new IdentityClient({ coreUrl: this.coreUrl, fetch: this.#fetch, keys: keys.source(agentId) });
  }
}
