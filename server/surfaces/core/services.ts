/**
 * The core surface's services, wired once per node and shared by the HTTP routes, the owner API
 * and (later) MCP, so each rule has exactly one implementation.
 */
import { EndToEnd } from './messaging/end-to-end.ts';
import { HealthService } from './health/service.ts';
import type { OwnerAccess } from '../../auth/owner.ts';
import type { NodeContext } from '../../context.ts';
import { AppEvents } from '../../teams/app-events.ts';
import { NodeDirectory } from '../../federation/directory.ts';
import { DEFAULT_DOMAIN_BUDGET, DomainBudgets, type DomainBudget } from '../../federation/domain-budget.ts';
import { FederationInbound } from '../../federation/inbound.ts';
import { FederationBatches } from '../../federation/inbound-batch.ts';
import { FederationOutbox, type OutboxOptions } from '../../federation/outbox.ts';
import { RemoteEncryptionKeyLookup, type RemoteKeyOptions } from '../../federation/remote-encryption-keys.ts';
import { RemoteClient, type RemoteClientOptions } from '../../net/remote-client.ts';
import { VerifiedKeyAssertions } from '../../crypto/e2ee/verified-key-assertions.ts';
import { ChatService } from './chat/service.ts';
import { ContactService } from './contacts/service.ts';
import { ControlService } from './control/service.ts';
import { DidRegistry } from './did/registry.ts';
import { NodeWakeFeed } from './events/node-feed.ts';
import { EventStreams } from './events/service.ts';
import { appEventWakeSource, chatWakeSource, controlWakeSource, mailWakeSource } from './events/sources.ts';
import { EventSubscriptions } from './events/subscriptions.ts';
import { CoreForFederation, type LocalRecipient } from './federation-core.ts';
import { IdentityBackups } from './identities/backup.ts';
import type { IdentityEncryptionKeys } from './identities/encryption-keys.ts';
import type { RemoteEncryptionKeys } from './identities/remote-encryption-keys.ts';
import { ClientKeyLookup } from './identities/client-key-lookup.ts';
import { IdentityLifecycle } from './identities/lifecycle.ts';
import { IdentityPresence } from './identities/presence.ts';
import { IdentityService } from './identities/service.ts';
import { MailService } from './mail/service.ts';
import { Recipients } from './messaging/recipients.ts';
import { NamespaceService } from './namespaces/service.ts';
import { ProjectService } from './projects/service.ts';
import { SearchService } from '../../search/service.ts';
import { TeamService } from '../../teams/service.ts';
import { TeamAgentService } from './team/service.ts';

export interface CoreServices {
  ctx: NodeContext;
  owner: OwnerAccess;
  did: DidRegistry;
  namespaces: NamespaceService;
  projects: ProjectService;
  identities: IdentityService;
  lifecycle: IdentityLifecycle;
  backups: IdentityBackups;
  encryptionKeys: IdentityEncryptionKeys;
  /** Identities' encryption keys on other nodes, found on their own node by address and verified. */
  remoteEncryptionKeys: RemoteEncryptionKeys;
  /** An address's did:svc and encryption key as a client asks for them: this node's, or for its own identities, another node's. */
  clientKeys: ClientKeyLookup;
  /** Key assertion signatures verified once per node (the remote keys' lookup verifies through it; sealing can too). */
  keyAssertions: VerifiedKeyAssertions;
  /** Who is online as far as this node knows (event streams, heartbeats): MCP's list_agents. */
  presence: IdentityPresence;
  recipients: Recipients;
  chat: ChatService;
  mail: MailService;
  contacts: ContactService;
  control: ControlService;
  events: EventStreams;
  /** New mail and chat for every identity: the owner's notifications and badges. */
  wakeFeed: NodeWakeFeed;
  /** Teams whose key the node holds: certificates, and the keyring team-certificate auth checks. */
  teams: TeamService;
  /** Members connected with a team certificate (POST /v1/connect): who a verified member is, the team surface. */
  teamAgents: TeamAgentService;
  /** App events (`docs/doc.changed`): surfaces emit them, subscribed team members' streams show them. */
  appEvents: AppEvents;
  /** Which app events reach an identity's stream. */
  subscriptions: EventSubscriptions;
  /** Which node answers for a domain: the owner's peer table, then DNS. */
  directory: NodeDirectory;
  /** What federation may ask of the core (federation/core-port.ts): the outbox and inbound reach the core only through it. */
  federationCore: CoreForFederation;
  /** Whether the node and its database answer (`GET /health`). */
  health: HealthService;
  /** Mail on its way to other nodes; its worker is started and stopped with the node. */
  outbox: FederationOutbox;
  /** Mail arriving from other nodes. */
  inbound: FederationInbound<LocalRecipient>;
  /** Mail arriving from other nodes many at a time, budgeted by sending domain. */
  batches: FederationBatches<LocalRecipient>;
  /** The one outbound HTTP client: every request this node makes to another node goes through it. */
  remote: RemoteClient;
  /** Full-text search over everything this node holds, scoped like reads (server/search/). */
  search: SearchService;
}

export interface CoreServiceOptions {
  outbox?: Partial<OutboxOptions>;
  /** Timeouts and concurrency caps of the outbound client (tests tighten them). */
  remote?: Partial<RemoteClientOptions>;
  /** What each sending domain may deliver here (tests lower it). */
  domainBudget?: DomainBudget;
  /** How long keys found on other nodes are remembered (tests shorten it). */
  remoteKeys?: Partial<RemoteKeyOptions>;
}

export function createCoreServices(ctx: NodeContext, owner: OwnerAccess, options: CoreServiceOptions = {}): CoreServices {
  const did = new DidRegistry(ctx);
  const directory = new NodeDirectory(ctx);
  const namespaces = new NamespaceService(ctx, did, directory);
  const projects = new ProjectService(ctx, namespaces);
  const deps = { did, namespaces, projects };
  const identities = new IdentityService(ctx, deps);
  const lifecycle = new IdentityLifecycle(ctx, deps, identities);
  const backups = new IdentityBackups(ctx, deps, identities);
  const presence = new IdentityPresence(ctx.clock, ctx.bus);
  const recipients = new Recipients(ctx, identities, namespaces);
  const remote = new RemoteClient(ctx.dns, options.remote);
  // Chat sends through the outbox, which is made with federation's view of the core: that view asks for chat when it needs it.
  const endToEnd = new EndToEnd(ctx, identities.encryptionKeys);
  const federationCore = new CoreForFederation(ctx, { recipients, namespaces, endToEnd, chat: (): ChatService => chat });
  const keyAssertions = new VerifiedKeyAssertions();
  const remoteKeyLookup = new RemoteEncryptionKeyLookup(ctx, directory, remote, keyAssertions, options.remoteKeys);
  const remoteEncryptionKeys: RemoteEncryptionKeys = remoteKeyLookup;
  const outbox = new FederationOutbox(ctx, directory, remote, federationCore, remoteKeyLookup, options.outbox);
  const mail = new MailService(ctx, identities, recipients, outbox, namespaces, endToEnd, remoteEncryptionKeys);
  const chat = new ChatService(ctx, identities, recipients, outbox, namespaces, mail, endToEnd, remoteEncryptionKeys);
  const inbound = new FederationInbound(ctx, directory, remote, federationCore);
  const batches = new FederationBatches(inbound, new DomainBudgets(options.domainBudget ?? DEFAULT_DOMAIN_BUDGET, ctx.clock));
  const contacts = new ContactService(ctx);
  const control = new ControlService(ctx, identities, recipients);
  const teams = new TeamService(ctx);
  const teamAgents = new TeamAgentService(ctx, { teams, projects, namespaces, did, identities, presence });
  const appEvents = new AppEvents(ctx);
  const subscriptions = new EventSubscriptions(ctx, identities, teams);
  // The identity stream's wake sources: one per kind of pending item.
  const events = new EventStreams(ctx, [mailWakeSource(mail), chatWakeSource(chat), controlWakeSource(control), appEventWakeSource(appEvents)]);
  const wakeFeed = new NodeWakeFeed(ctx.bus, mail, chat, presence);
  const search = new SearchService(ctx.db, ctx.clock);
  return {
    ctx,
    owner,
    did,
    namespaces,
    projects,
    identities,
    lifecycle,
    backups,
    encryptionKeys: identities.encryptionKeys,
    remoteEncryptionKeys,
    clientKeys: new ClientKeyLookup(namespaces, identities, remoteEncryptionKeys),
    keyAssertions,
    presence,
    recipients,
    chat,
    mail,
    contacts,
    control,
    events,
    wakeFeed,
    teams,
    teamAgents,
    appEvents,
    subscriptions,
    directory,
    federationCore,
    outbox,
    inbound,
    batches,
    remote,
    search,
    health: new HealthService(ctx.db),
  };
}
