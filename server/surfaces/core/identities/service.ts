/**
 * Identities (the spec's agents/workspaces): creation in a project, reading, settings and
 * address resolution. Lifecycle changes (rotate, delete, archive, replace) are in lifecycle.ts.
 */
import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../../auth/api-keys.ts';
import type { Principal } from '../../../auth/bearer.ts';
import type { NodeContext } from '../../../context.ts';
import { publicKeyFromDidKey } from '../../../crypto/did-key.ts';
import { fromBase64Padded, fromBase64Unpadded, fromBase64Url } from '../../../crypto/encoding.ts';
import { DID_METHOD, stableIdFromPublicKey } from '../../../crypto/stable-id.ts';
import { conflict, invalid, notFound } from '../../../errors.ts';
import type { DidRegistry } from '../did/registry.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import type { ProjectService } from '../projects/service.ts';
import { appendAgentLog } from './agent-log.ts';
import { IdentityEncryptionKeys } from './encryption-keys.ts';
import { agentLogEntries } from './store/agent-log.ts';
import { allocateAlias } from './domain/aliases.ts';
import {
  aliasTaken,
  findIdentity,
  followSelfCustodialKey,
  hostedIdentityOfDid,
  hostedIdentityOfDidKey,
  identityContext,
  insertIdentity,
  listLiveIdentities,
  updateIdentitySettings,
  type AgentRow,
} from './store/agents.ts';
import type {
  AgentLog,
  CreatedIdentity,
  Identity,
  InitInput,
  Introspection,
  Lifetime,
  Resolved,
  Settings,
  SettingsInput,
} from '../../../../contract/core/identities.ts';
import type { NodeIdentity, NodeSettingsInput, SessionKey } from '../../../../contract/node/identities.ts';
import type { DidKey } from '../../../../contract/core/did.ts';

// Other aggregates still name the row through this module.

const SESSION_KEY_TTL_MS = 24 * 60 * 60 * 1000;

export interface CoreDeps {
  did: DidRegistry;
  namespaces: NamespaceService;
  projects: ProjectService;
}

export class IdentityService {
  readonly #ctx: NodeContext;
  readonly #deps: CoreDeps;
  /** The identities' end-to-end encryption keys; creation, rotation and deletion keep them in step. */
  readonly encryptionKeys: IdentityEncryptionKeys;

  constructor(ctx: NodeContext, deps: CoreDeps) {
    this.#ctx = ctx;
    this.#deps = deps;
    this.encryptionKeys = new IdentityEncryptionKeys(ctx);
  }

  row(agentId: string): AgentRow {
    const row = findIdentity(this.#ctx.db, agentId);
    if (!row || row.status === 'deleted') throw notFound('SVC_ERR_IDENTITY_NOT_FOUND', 'Identity not found');
    return row;
  }

  /**
   * The identity's sender address: the oldest address bound to its did:svc, or assigned to its
   * current did:key (the spec's `{name, did_key}` body), whichever came first.
   */
  address(row: AgentRow): string | null {
    if (row.status === 'replaced') return null;
    return this.#deps.namespaces.addressesOfIdentity(row.did_aw, row.did_key)[0]?.address ?? null;
  }

  view(row: AgentRow): Identity {
    return {
      identity_id: row.agent_id,
      agent_id: row.agent_id,
      project_id: row.project_id,
      project_slug: this.#deps.projects.get(row.project_id).slug,
      alias: row.alias,
      name: row.name,
      lifetime: row.lifetime,
      status: row.status,
      custody: row.custody,
      did_key: row.did_key,
      did_aw: row.did_aw,
      address: this.address(row),
      address_reachability: row.address_reachability,
      accepts_plaintext: row.accepts_plaintext === 1,
      human_name: row.human_name,
      role: row.role,
      program: row.program,
      context: identityContext(row),
      successor_agent_id: row.successor_agent_id,
      created_at: row.created_at,
    };
  }

  /** Every identity of the node, oldest first, for its owner: each with its encryption key's health. */
  list(): NodeIdentity[] {
    return listLiveIdentities(this.#ctx.db).map((row) => this.#nodeView(row));
  }

  /** The owner's change of an identity's settings (`PATCH /v1/node/identities/{agent_id}`): the identity as the list shows it. */
  updateByOwner(agentId: string, patch: NodeSettingsInput): NodeIdentity {
    this.updateSettings(agentId, patch);
    return this.#nodeView(this.row(agentId));
  }

  #nodeView(row: AgentRow): NodeIdentity {
    return { ...this.view(row), encryption_key: this.encryptionKeys.summary(row) };
  }

  /**
   * Creates an identity in a project: a key in custody, and for a persistent identity a
   * registered did:svc and, when the project has a namespace, the address `<namespace>/<name>`.
   * Everything happens in one transaction; the API key is returned once.
   */
  create(projectId: string, input: InitInput): CreatedIdentity {
    const { db, custody, clock } = this.#ctx;
    const project = this.#deps.projects.get(projectId);
    const lifetime: Lifetime = input.lifetime ?? 'ephemeral';
    const self = input.custody === 'self' ? this.clientKey(input, lifetime) : null;
    return db.transaction(() => {
      const taken = (alias: string) => aliasTaken(db, projectId, alias);
      const alias = input.name ?? input.alias ?? allocateAlias(taken);
      if (taken(alias)) throw conflict('SVC_ERR_ALIAS_TAKEN', `Alias ${alias} is already in use in project ${project.slug}`);
      // Self custody: nothing goes into custody (key_id ''); the client registered its did:svc itself.
      const key = self === null ? custody.createSigningKey('identity') : { keyId: '', didKey: self.didKey };
      const didAw = self !== null ? self.didAw : lifetime === 'persistent' ? this.#deps.did.registerCustodial(key.keyId).did_aw : null;
      const now = clock.now().toISOString();
      const agentId = randomUUID();
      insertIdentity(db, {
        agent_id: agentId,
        project_id: projectId,
        alias,
        name: input.name ?? null,
        lifetime,
        custody: self === null ? 'custodial' : 'self',
        key_id: key.keyId,
        did_key: key.didKey,
        did_aw: didAw,
        address_reachability: input.address_reachability ?? 'public',
        human_name: input.human_name ?? '',
        role: input.role ?? null,
        program: input.program ?? null,
        context: input.context ?? null,
        created_at: now,
        updated_at: now,
      });
      if (didAw !== null && project.namespace !== null && input.name !== undefined) {
        this.#assignProjectAddress(project.namespace, input.name, key.didKey, didAw);
      }
      appendAgentLog(this.#ctx, agentId, key, { operation: 'create', new_did: key.didKey, metadata: { lifetime, did_aw: didAw } });
      if (self === null) this.encryptionKeys.create(agentId);
      const { apiKey } = issueApiKey(db, projectId, agentId, now);
      const view = this.view(this.row(agentId));
      return {
        ...view,
        status: 'ok' as const,
        identity_status: view.status,
        created: true as const,
        api_key: apiKey,
        did: view.did_key,
        stable_id: view.did_aw,
        namespace: project.namespace,
        server_url: this.#ctx.urls.core_url,
      };
    })();
  }

  /**
   * The key a self-custodial client brings (upstream E1 `custody: "self"`): `did` an Ed25519
   * did:key and `public_key` its 32 bytes. A persistent one's did:svc (derived from this key) must
   * already be registered with it (POST /v1/did, signed by the client): the node signs no log
   * entry for a key it does not hold. A key already hosted here is refused. Creation and a
   * replacement by a self-custodial successor (lifecycle.ts) take it the same way.
   */
  clientKey(input: Pick<InitInput, 'did' | 'public_key'>, lifetime: Lifetime): { didKey: string; didAw: string | null } {
    const didKey = input.did ?? '';
    const publicKey = publicKeyFromDidKey(didKey);
    if (publicKey === null) throw invalid('SVC_ERR_DID_MALFORMED', 'did must be an Ed25519 did:key');
    const text = (input.public_key ?? '').replace(/=+$/, '');
    const given = fromBase64Url(text) ?? fromBase64Unpadded(text) ?? fromBase64Padded(input.public_key ?? '');
    if (given === null || !given.equals(Buffer.from(publicKey)))
      throw invalid('SVC_ERR_PUBLIC_KEY_MISMATCH', 'public_key is not the 32-byte Ed25519 key of did');
    if (hostedIdentityOfDidKey(this.#ctx.db, didKey) !== undefined)
      throw conflict('SVC_ERR_IDENTITY_EXISTS', 'An identity of this node already holds this did:key');
    if (lifetime !== 'persistent') return { didKey, didAw: null };
    const didAw = stableIdFromPublicKey(publicKey, DID_METHOD);
    const current = this.#deps.did.currentKey(didAw);
    if (current === null) {
      throw conflict(
        'SVC_ERR_DID_UNREGISTERED',
        `Register ${didAw} first: POST /v1/did with its genesis entry signed by this key (the node signs nothing for a key it does not hold)`,
      );
    }
    if (current !== didKey) throw conflict('SVC_ERR_DID_KEY_MISMATCH', `did is not the current key of ${didAw}`);
    if (hostedIdentityOfDid(this.#ctx.db, didAw) !== undefined) throw conflict('SVC_ERR_IDENTITY_EXISTS', `An identity of this node already holds ${didAw}`);
    return { didKey, didAw };
  }

  /** A self-custodial identity takes the key its client rotated to in its did:svc log (PUT /v1/did). */
  /**
   * A did:svc's current did:key and log head, with the encryption key assertion of the identity of
   * this node that is this did:svc, when it has one that verifies now against that did:key.
   */
  didKey(didAw: string): DidKey {
    const key = this.#deps.did.key(didAw);
    const row = hostedIdentityOfDid(this.#ctx.db, didAw);
    const assertion = row?.did_key === key.current_did_key ? this.encryptionKeys.current(row) : null;
    return assertion === null ? key : { ...key, encryption_key: assertion };
  }

  /** The alias of the identity of this node (active or archived) that is this did:svc; null when none is. */
  aliasOfDid(didAw: string): string | null {
    return hostedIdentityOfDid(this.#ctx.db, didAw)?.alias ?? null;
  }

  followDidRotation(didAw: string, didKey: string): void {
    followSelfCustodialKey(this.#ctx.db, didAw, didKey, this.#ctx.clock.now().toISOString());
  }

  /** The node signs as controller: it holds the key of every namespace a project can own. */
  #assignProjectAddress(domain: string, name: string, didKey: string, didAw: string): void {
    const namespace = this.#deps.namespaces.get(domain);
    this.#deps.namespaces.assignAddress(domain, name, namespace.controller_did, didKey, didAw);
  }

  /**
   * A key the owner's UI uses to act as an identity for a day: the UI never sees the identity's
   * own keys (they are shown once), and every rule stays in the identity API it then calls.
   */
  issueSessionKey(agentId: string): SessionKey {
    const row = this.row(agentId);
    if (row.status !== 'active') throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', `Identity is ${row.status}`);
    const now = this.#ctx.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_KEY_TTL_MS).toISOString();
    const { apiKey, apiKeyId } = issueApiKey(this.#ctx.db, row.project_id, agentId, now.toISOString(), { label: 'ui-session', expiresAt });
    return { api_key: apiKey, api_key_id: apiKeyId, expires_at: expiresAt };
  }

  introspect(principal: Principal): Introspection {
    const project = this.#deps.projects.get(principal.projectId);
    const base = { project_id: project.project_id, project_slug: project.slug, api_key_id: principal.apiKeyId };
    if (principal.agentId === null) return { ...base, key_type: 'project' as const, agent_id: null };
    return { ...base, key_type: 'identity' as const, ...this.view(this.row(principal.agentId)) };
  }

  log(agentId: string): AgentLog {
    const row = this.row(agentId);
    return {
      agent_id: row.agent_id,
      alias: row.alias,
      address: this.address(row) ?? row.alias,
      did_aw: row.did_aw,
      log: agentLogEntries(this.#ctx.db, agentId),
      did_log: row.did_aw === null ? [] : this.#deps.did.log(row.did_aw),
    };
  }

  /** The identity's own settings; a team member's workspace fields are the team service's (the route joins them). */
  updateSettings(agentId: string, patch: SettingsInput | NodeSettingsInput): Omit<Settings, 'hostname' | 'workspace_path'> {
    const row = this.row(agentId);
    const { db } = this.#ctx;
    db.transaction(() => {
      updateIdentitySettings(db, agentId, patch, this.#ctx.clock.now().toISOString());
      appendAgentLog(
        this.#ctx,
        agentId,
        { keyId: row.key_id, didKey: row.did_key },
        {
          operation: 'update_settings',
          metadata: { fields: Object.keys(patch).sort() },
        },
      );
    })();
    const view = this.view(this.row(agentId));
    return {
      agent_id: view.agent_id,
      human_name: view.human_name,
      role: view.role,
      program: view.program,
      context: view.context,
      address_reachability: view.address_reachability,
      accepts_plaintext: view.accepts_plaintext,
      alias: view.alias,
    };
  }

  /** Resolves `<namespace>/<name>` to the identity behind it, local or not. */
  resolve(principal: Principal, namespace: string, name: string): Resolved {
    const ns = this.#deps.namespaces.get(namespace);
    const address = this.#deps.namespaces.getAddress(namespace, name);
    const local = address.did_aw === null ? hostedIdentityOfDidKey(this.#ctx.db, address.did_key) : hostedIdentityOfDid(this.#ctx.db, address.did_aw);
    const sameProject = local !== undefined && local.project_id === principal.projectId;
    return {
      address: address.address,
      did: address.did_key,
      did_key: address.did_key,
      stable_id: address.did_aw,
      did_aw: address.did_aw,
      controller_did: ns.controller_did,
      namespace_verification: ns.verification_status,
      server: this.#ctx.urls.core_url,
      local: local !== undefined,
      agent_id: sameProject ? local.agent_id : null,
      alias: sameProject ? local.alias : null,
      human_name: local?.human_name ?? null,
      lifetime: local?.lifetime ?? null,
      custody: local?.custody ?? null,
      status: local?.status ?? null,
    };
  }
}
