/**
 * The node as the stores' unit tests see it: one fake of the clients the stores talk through
 * (api/), the system edge of the renderer. The session store holds a fake owner client
 * (NodeClient); the identity clients it makes (mail, chat, contacts) and the team clients
 * (DocsClient, LibraryClient: a test file swaps them in with `vi.mock`, see `fakeDocsModule`) are
 * fakes too. Every method is the real client's (its name read from the real class), answering
 * with the handler a test set, typed as the real method, so a fake cannot drift from the client;
 * a method no test answered fails loudly. Every call is recorded with whom it acted as. The owner
 * feed and the chat streams are held open so a test can push frames. The fixtures below are
 * parsed with the contract's schemas: shaped as the node answers.
 */
import { createPinia, setActivePinia } from 'pinia';
import { ChatMessage, ChatSession, PendingChat } from '../../../contract/core/chat.ts';
import { Contact } from '../../../contract/core/contacts.ts';
import { NodeChatWake, NodeMailWake } from '../../../contract/core/events.ts';
import { EncryptionKeySummary } from '../../../contract/core/encryption-keys.ts';
import { NodeIdentity } from '../../../contract/node/identities.ts';
import { MailMessage, OutboundMail, SendMailResult } from '../../../contract/core/mail.ts';
import { DocumentDetail, DocumentVersion } from '../../../contract/docs/documents.ts';
import { Binding } from '../../../contract/library/bindings.ts';
import { BlueprintDetail, BlueprintSummary } from '../../../contract/library/catalog.ts';
import { ProfileWithFiles } from '../../../contract/library/profiles.ts';
import { Proposal } from '../../../contract/library/proposals.ts';
import { ShelfProfile } from '../../../contract/library/shelf.ts';
import { Team } from '../../../contract/node/teams.ts';
import { ChatClient, type SessionEvent } from '../api/chat.ts';
import { ContactsClient } from '../api/contacts.ts';
import type * as DocsModule from '../api/docs.ts';
import type { IdentityClient } from '../api/identity.ts';
import type * as LibraryModule from '../api/library.ts';
import { MailClient } from '../api/mail.ts';
import { NodeClient, type NodeAgentPresence, type NodeChange, type NodeInfo, type NodeWakeItem } from '../api/owner.ts';
import type { StreamState } from '../api/sse.ts';
import { useSessionStore } from './session.ts';

/** A client class's methods: its public face (`keyof` leaves the #private fields out). */
type Methods<T> = { [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] };

export type Area = 'owner' | 'mail' | 'chat' | 'contacts' | 'docs' | 'library';

/** One call a store made: which client, which method, with what, and as whom (an identity, a team). */
export interface Call {
  area: Area;
  method: string;
  args: unknown[];
  as: string | null;
}

type FeedHandlers = Parameters<NodeClient['streamWake']>[0];
type ChatStreamHandlers = Parameters<ChatClient['stream']>[1];

/** What one team's clients answer. */
export interface TeamAnswers {
  docs: Partial<Methods<DocsModule.DocsClient>>;
  library: Partial<Methods<LibraryModule.LibraryClient>>;
}

/** A chat session stream a store opened, for the test to push frames into. */
export interface FakeChatStream {
  sessionId: string;
  handlers: ChatStreamHandlers;
  closed: boolean;
}

export const NODE_INFO: NodeInfo = {
  node_id: 'node-1',
  version: '0.0.0-test',
  core_url: 'http://node.test',
  library_url: 'http://library.test',
  docs_url: 'http://docs.test',
  ui_url: 'http://node.test/ui/',
  public_url: null,
  data_dir: '/data/node',
  custody_backend: 'key-file',
};

/** The active fake, for the team clients a store builds itself (`fakeDocsModule`). */
let active: FakeNode | null = null;

export class FakeNode {
  /** Answers, per area, by the real client's method name; tests set and replace them. */
  readonly owner: Partial<Methods<NodeClient>>;
  readonly mail: Partial<Methods<MailClient>> = {};
  readonly chat: Partial<Methods<ChatClient>>;
  readonly contacts: Partial<Methods<ContactsClient>> = {};
  readonly docs: Partial<Methods<DocsModule.DocsClient>> = {};
  readonly library: Partial<Methods<LibraryModule.LibraryClient>> = {};
  readonly calls: Call[] = [];
  /** What the owner feed's stream was given, once a store opened it. */
  feedHandlers: FeedHandlers | null = null;
  readonly chatStreams: FakeChatStream[] = [];
  /** The owner client as the session store holds it. */
  readonly client: NodeClient;

  constructor() {
    this.owner = {
      streamWake: (handlers) => {
        this.feedHandlers = handlers;
        return { close: () => (this.feedHandlers = null) };
      },
      asIdentity: (agentId) => this.#identity(agentId),
    };
    this.chat = {
      stream: (sessionId, handlers) => {
        const stream: FakeChatStream = { sessionId, handlers, closed: false };
        this.chatStreams.push(stream);
        return { close: () => (stream.closed = true) };
      },
    };
    // The real clients' private fields make their types nominal: these two casts are where the fake meets the stores.
    this.client = facade(this, 'owner', NodeClient.prototype, () => [this.owner], null, {
      coreUrl: NODE_INFO.core_url,
      mode: 'desktop',
    }) as unknown as NodeClient;
  }

  #identity(agentId: string): IdentityClient {
    const face = {
      mail: facade(this, 'mail', MailClient.prototype, () => [this.mail], agentId),
      chat: facade(this, 'chat', ChatClient.prototype, () => [this.chat], agentId),
      contacts: facade(this, 'contacts', ContactsClient.prototype, () => [this.contacts], agentId),
    };
    return face as unknown as IdentityClient;
  }

  readonly #teams = new Map<string, TeamAnswers>();

  /** Answers for one team's documents and library only; they come before the answers for every team. */
  forTeam(teamId: string): TeamAnswers {
    let answers = this.#teams.get(teamId);
    if (answers === undefined) {
      answers = { docs: {}, library: {} };
      this.#teams.set(teamId, answers);
    }
    return answers;
  }

  /** The node's directory: these identities, in no project or namespace (the directory store loads them). */
  holdsIdentities(...identities: NodeIdentity[]): void {
    this.owner.identities = async () => identities;
    this.owner.projects = async () => [];
    this.owner.namespaces = async () => [];
  }

  /** The calls to one client (and, when named, one of its methods), in order. */
  callsTo(area: Area, method?: string): Call[] {
    return this.calls.filter((call) => call.area === area && (method === undefined || call.method === method));
  }

  /** Pushes a frame down the owner feed (the live store must have started it). */
  readonly feed = {
    item: (item: NodeWakeItem) => this.#feed().onItem(item),
    change: (change: NodeChange) => this.#feed().onChange?.(change),
    presence: (presence: NodeAgentPresence) => this.#feed().onPresence?.(presence),
    state: (state: StreamState, detail: string | null = null) => this.#feed().onState?.(state, detail),
  };

  #feed(): FeedHandlers {
    if (this.feedHandlers === null) throw new Error('The owner feed is not open: start the live store first.');
    return this.feedHandlers;
  }

  /** The open chat stream of a session, to push its frames. */
  chatStream(sessionId: string): FakeChatStream {
    const stream = this.chatStreams.findLast((s) => s.sessionId === sessionId && !s.closed);
    if (stream === undefined) throw new Error(`No chat stream is open for ${sessionId}.`);
    return stream;
  }

  pushChat(sessionId: string, event: SessionEvent): void {
    this.chatStream(sessionId).handlers.onEvent(event);
  }
}

/**
 * An object with every method of `proto` (a real client class's prototype), each recording the
 * call and answering from the first of `answers()` that has that method; `fields` are the
 * client's plain properties.
 */
function facade(
  node: FakeNode,
  area: Area,
  proto: object,
  answers: () => readonly object[],
  as: string | null,
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  const face: Record<string, unknown> = { ...fields };
  for (const method of Object.getOwnPropertyNames(proto)) {
    if (method === 'constructor') continue;
    face[method] = (...args: unknown[]): unknown => {
      node.calls.push({ area, method, args, as });
      const handlers = answers().find((candidate) => typeof Reflect.get(candidate, method) === 'function');
      if (handlers === undefined) return Promise.reject(new Error(`The fake node has no answer for ${area}.${method}.`));
      return Reflect.apply(Reflect.get(handlers, method) as (...args: unknown[]) => unknown, handlers, args);
    };
  }
  return face;
}

/**
 * A fresh Pinia and a fake node the session store is connected to (as the desktop app is: no
 * sign-in, the node's info known). Call in `beforeEach`.
 */
export function connectFakeNode(): FakeNode {
  setActivePinia(createPinia());
  const node = new FakeNode();
  active = node;
  const session = useSessionStore();
  session.client = node.client;
  session.info = NODE_INFO;
  return node;
}

function activeNode(): FakeNode {
  if (active === null) throw new Error('No fake node: call connectFakeNode() first.');
  return active;
}

/** `vi.mock('../api/docs.ts', async (original) => fakeDocsModule(await original()))`: DocsClient answers from the fake node's `docs`. */
export function fakeDocsModule(original: typeof DocsModule): typeof DocsModule {
  const proto = original.DocsClient.prototype;
  function FakeDocsClient(options: ConstructorParameters<typeof DocsModule.DocsClient>[0]) {
    const node = activeNode();
    return facade(node, 'docs', proto, () => [node.forTeam(options.teamId).docs, node.docs], options.teamId, {
      docsUrl: options.docsUrl,
      teamId: options.teamId,
    });
  }
  return { ...original, DocsClient: FakeDocsClient as unknown as typeof DocsModule.DocsClient };
}

/** `vi.mock('../api/library.ts', async (original) => fakeLibraryModule(await original()))`: LibraryClient answers from the fake node's `library`. */
export function fakeLibraryModule(original: typeof LibraryModule): typeof LibraryModule {
  const proto = original.LibraryClient.prototype;
  function FakeLibraryClient(options: ConstructorParameters<typeof LibraryModule.LibraryClient>[0]) {
    const node = activeNode();
    return facade(node, 'library', proto, () => [node.forTeam(options.teamId).library, node.library], options.teamId, {
      libraryUrl: options.libraryUrl,
      teamId: options.teamId,
    });
  }
  return { ...original, LibraryClient: FakeLibraryClient as unknown as typeof LibraryModule.LibraryClient };
}

/** A promise the test settles: a slow answer, released when the test says. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

// ---------------------------------------------------------------------------------------------
// Fixtures, each checked against the contract's schema
// ---------------------------------------------------------------------------------------------

const AT = '2026-03-01T10:00:00.000Z';

/** A custodial identity's key, made at AT and never rotated, as the owner's list shows it. */
export function keySummary(fields: Partial<EncryptionKeySummary> = {}): EncryptionKeySummary {
  return EncryptionKeySummary.parse({
    state: 'published',
    holder: 'node',
    encryption_key_id: 'sha256:key-1',
    created_at: AT,
    expires_at: '2026-05-30T10:00:00.000Z',
    renews_at: '2026-05-15T10:00:00.000Z',
    earlier_keys: 0,
    rotated_at: null,
    ...fields,
  });
}

export function identity(alias: string, fields: Partial<NodeIdentity> = {}): NodeIdentity {
  const id = fields.agent_id ?? `agent-${alias}`;
  return NodeIdentity.parse({
    identity_id: id,
    agent_id: id,
    project_id: 'p-1',
    project_slug: 'home',
    alias,
    name: alias,
    lifetime: 'persistent',
    status: 'active',
    custody: 'custodial',
    did_key: `did:key:z${alias}`,
    did_aw: `did:svc:${alias}`,
    address: `example.com/${alias}`,
    address_reachability: 'public',
    accepts_plaintext: true,
    human_name: alias,
    role: null,
    program: null,
    context: null,
    successor_agent_id: null,
    created_at: AT,
    encryption_key: keySummary(),
    ...fields,
  });
}

export function team(teamId: string, fields: Partial<Team> = {}): Team {
  const [name = teamId, domain = 'example.com'] = teamId.split(':');
  return Team.parse({
    team_id: teamId,
    name,
    domain,
    team_did_key: `did:key:z${name}`,
    owner_certificate_id: `c-${name}`,
    member_count: 1,
    created_at: AT,
    ...fields,
  });
}

export function mailMessage(messageId: string, fields: Partial<MailMessage> = {}): MailMessage {
  return MailMessage.parse({
    message_id: messageId,
    from_agent_id: 'agent-bo',
    from_alias: 'bo',
    from_address: 'example.com/bo',
    from_did: 'did:key:zbo',
    from_stable_id: null,
    to_alias: 'ada',
    to_address: 'example.com/ada',
    to_did: 'did:key:zada',
    to_stable_id: null,
    subject: `Subject ${messageId}`,
    body: `Body of ${messageId}`,
    priority: 'normal',
    signature: 'sig',
    signed_payload: 'payload',
    signing_key_id: 'did:key:zbo',
    thread_id: null,
    conversation_id: messageId,
    rotation_announcement: null,
    replacement_announcement: null,
    created_at: AT,
    read_at: null,
    origin: 'local',
    from_node: null,
    archived_at: null,
    is_contact: false,
    signature_status: 'verified',
    from_namespace_trust: null,
    // Mail between identities whose keys the node holds: sealed, and opened by the node for its reader.
    end_to_end: true,
    content_mode: 'server_readable_hosted',
    message_version: 2,
    ...fields,
  });
}

export function mailWake(agentId: string, messageId: string, fields: Partial<NodeMailWake> = {}): NodeMailWake {
  return NodeMailWake.parse({
    agent_id: agentId,
    type: 'mail_message',
    message_id: messageId,
    from_alias: 'bo',
    from_address: null,
    subject: 'Hi',
    end_to_end: false,
    priority: 'normal',
    created_at: AT,
    ...fields,
  });
}

export function chatWake(agentId: string, sessionId: string, fields: Partial<NodeChatWake> = {}): NodeChatWake {
  return NodeChatWake.parse({
    agent_id: agentId,
    type: 'chat_message',
    message_id: `m-${sessionId}-${Math.random()}`,
    from_alias: 'bo',
    from_address: null,
    session_id: sessionId,
    preview: 'hello',
    end_to_end: false,
    sender_leaving: false,
    sender_rejoining: false,
    created_at: AT,
    ...fields,
  });
}

export function outboundMail(messageId: string, fields: Partial<OutboundMail> = {}): OutboundMail {
  return OutboundMail.parse({
    message_id: messageId,
    kind: 'mail',
    to_address: 'far.example/cy',
    to_domain: 'far.example',
    status: 'queued',
    attempts: 1,
    next_attempt_at: AT,
    last_error: null,
    delivered_to: null,
    created_at: AT,
    settled_at: null,
    subject: `Subject ${messageId}`,
    ...fields,
  });
}

/** The node's answer to a send: each recipient delivered here, or queued for another node when `queued`. */
export function sendResult(to: readonly string[], queued: readonly string[] = []): SendMailResult {
  const messages = to.map((recipient, n) => ({
    message_id: `sent-${n}`,
    to: recipient,
    to_alias: queued.includes(recipient) ? null : recipient,
    to_address: queued.includes(recipient) ? recipient : null,
    to_did: queued.includes(recipient) ? '' : `did:key:z${recipient}`,
    to_stable_id: null,
    status: queued.includes(recipient) ? 'queued' : 'delivered',
  }));
  return SendMailResult.parse({ message_id: messages[0]?.message_id ?? 'sent-0', status: messages[0]?.status ?? 'delivered', delivered_at: AT, messages });
}

export function contact(address: string, fields: Partial<Contact> = {}): Contact {
  return Contact.parse({ contact_id: `c-${address}`, contact_address: address, label: '', created_at: AT, ...fields });
}

export function chatSession(sessionId: string, fields: Partial<ChatSession> = {}): ChatSession {
  return ChatSession.parse({
    session_id: sessionId,
    participants: ['bo'],
    participant_addresses: ['example.com/bo'],
    participant_dids: ['did:key:zbo'],
    created_at: AT,
    last_activity: AT,
    sender_waiting: false,
    unread_count: 0,
    last_message: null,
    participants_left: [],
    you_left: false,
    ...fields,
  });
}

export function chatMessage(messageId: string, sessionId: string, fields: Partial<ChatMessage> = {}): ChatMessage {
  return ChatMessage.parse({
    message_id: messageId,
    session_id: sessionId,
    from_agent_id: 'agent-bo',
    from_alias: 'bo',
    from_address: 'example.com/bo',
    from_did: 'did:key:zbo',
    from_stable_id: null,
    from_agent: 'bo',
    to: 'ada',
    to_address: 'example.com/ada',
    to_did: 'did:key:zada',
    to_stable_id: null,
    body: `Body of ${messageId}`,
    timestamp: AT,
    created_at: AT,
    sender_leaving: false,
    sender_rejoining: false,
    hang_on: false,
    extends_wait_seconds: 0,
    reply_to: null,
    wait_seconds: null,
    signature: 'sig',
    signed_payload: 'payload',
    signing_key_id: 'did:key:zbo',
    is_contact: false,
    rotation_announcement: null,
    replacement_announcement: null,
    signature_status: 'verified',
    from_namespace_trust: null,
    end_to_end: false,
    content_mode: 'legacy_plaintext_v1',
    message_version: 1,
    ...fields,
  });
}

export function pendingChat(sessionId: string, fields: Partial<PendingChat> = {}): PendingChat {
  return PendingChat.parse({
    session_id: sessionId,
    participants: ['bo'],
    participant_addresses: ['example.com/bo'],
    participant_dids: ['did:key:zbo'],
    last_message: 'hello',
    last_message_id: null,
    last_from: 'bo',
    last_from_address: null,
    last_from_did: null,
    last_from_stable_id: null,
    unread_count: 1,
    last_activity: AT,
    sender_waiting: false,
    time_remaining_seconds: 0,
    last_message_content_mode: 'legacy_plaintext_v1',
    last_message_version: 1,
    ...fields,
  });
}

/** A version's metadata as a history lists it (`body` only when one version is read). */
export function documentVersion(n: number, body: string | null = null, fields: Partial<DocumentVersion> = {}): DocumentVersion {
  return DocumentVersion.parse({
    version_id: `v-${n}`,
    version_number: n,
    body,
    source: 'api',
    body_sha256: '0'.repeat(64),
    created_by_did_key: null,
    created_by_did_aw: null,
    created_by_address: null,
    created_by_alias: 'owner',
    certificate_id: null,
    created_by_editor_name: null,
    created_at: AT,
    acting_as: null,
    author: { kind: 'member', name: 'owner', address: null },
    ...fields,
  });
}

/** A document at its `version`, whose text is `body`. */
export function documentDetail(slug: string, version: number, body: string, fields: Partial<DocumentDetail> = {}): DocumentDetail {
  return DocumentDetail.parse({
    document_id: `d-${slug}`,
    slug,
    title: `Title of ${slug}`,
    current_version: version,
    updated_at: AT,
    created_at: AT,
    body,
    latest: documentVersion(version),
    ...fields,
  });
}

const NO_SOURCE = {
  source_blueprint_ref: null,
  source_blueprint_version: null,
  source_blueprint_digest: null,
  source_profile_ref: null,
  source_profile_version: null,
};

export function shelfProfile(profileRef: string, fields: Partial<ShelfProfile> = {}): ShelfProfile {
  return ShelfProfile.parse({
    ...NO_SOURCE,
    profile_ref: profileRef,
    version: '1.0.0',
    digest: `sha256:${profileRef}`,
    name: profileRef,
    summary: null,
    tags: [],
    source_blueprint_latest_version: null,
    update_available: false,
    source_profile_changed: false,
    updated_at: AT,
    ...fields,
  });
}

export function profileWithFiles(profileRef: string, version = '1.0.0', fields: Partial<ProfileWithFiles> = {}): ProfileWithFiles {
  return ProfileWithFiles.parse({
    ...NO_SOURCE,
    source_profile_digest: null,
    profile_ref: profileRef,
    version,
    digest: `sha256:${profileRef}@${version}`,
    tags: [],
    name: profileRef,
    mission: null,
    accepted_work: [],
    runtime_assumptions: [],
    memory_policy: null,
    expected_apps: [],
    origin: 'created',
    created_at: AT,
    files: [{ path: 'profile.yaml', content_utf8: `version: ${version}\n`, sha256: '0'.repeat(64) }],
    proposal_asset_digests: {},
    ...fields,
  });
}

export function proposal(proposalId: string, profileRef: string, fields: Partial<Proposal> = {}): Proposal {
  return Proposal.parse({
    proposal_id: proposalId,
    target: 'profile',
    profile_ref: profileRef,
    status: 'open',
    content: { schema: 1, assets: [] },
    summary: null,
    rationale: null,
    base_profile_version: '1.0.0',
    created_by_alias: 'scout',
    created_by_acting_as: null,
    created_at: AT,
    decided_by_alias: null,
    decided_by_acting_as: null,
    decided_at: null,
    decision_reason: null,
    ...fields,
  });
}

export function binding(agentId: string, profileRef: string, fields: Partial<Binding> = {}): Binding {
  return Binding.parse({
    agent_id: agentId,
    profile_ref: profileRef,
    profile_version: '1.0.0',
    profile_digest: `sha256:${profileRef}@1.0.0`,
    source_blueprint_ref: null,
    bound_at: AT,
    ...fields,
  });
}

export function blueprint(blueprintRef: string, fields: Partial<BlueprintSummary> = {}): BlueprintSummary {
  return BlueprintSummary.parse({
    blueprint_ref: blueprintRef,
    version: '1.0.0',
    digest: `sha256:${blueprintRef}`,
    tags: [],
    name: blueprintRef,
    summary: null,
    description: null,
    recommendations: [],
    runtime_hints: [],
    expected_apps: [],
    first_mission_examples: [],
    owner: 'crew:example.com',
    display_name: null,
    published_at: AT,
    ...fields,
  });
}

export function blueprintDetail(blueprintRef: string, fields: Partial<BlueprintDetail> = {}): BlueprintDetail {
  return BlueprintDetail.parse({
    ...blueprint(blueprintRef),
    profiles: [],
    versions: [{ version: '1.0.0', digest: `sha256:${blueprintRef}`, published_at: AT }],
    files: [],
    ...fields,
  });
}
