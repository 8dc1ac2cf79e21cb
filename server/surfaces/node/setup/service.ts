/**
 * "Set up your node" (`POST /v1/node/setup`): a person's first identity in one step, instead of a
 * namespace, a project and an identity made with three forms (which stay, for power users).
 *
 * It makes a namespace whose controller key the node holds, a project bound to it, and a
 * persistent identity named `name` in that project, so the identity's address is `<domain>/<name>`
 * at once. Without a domain, the namespace is this node's own `<node-label>.local`:
 * - not bare `local`: every node may have that one, so `local/alice` would name a different
 *   identity on every node and no peer could ever route to it; `node-1f2e3d4c.local` names this
 *   node alone, so another node that adds it as a peer (`svc-node peer add node-1f2e3d4c.local
 *   <url>`) reaches this identity by that address;
 * - `.local` (RFC 6762) is never in public DNS, so no `_svcid` record can claim it elsewhere.
 * A domain of one's own (`example.com`) makes the address reachable by anyone once its DNS record
 * is published; it can be given now or set up later under Identities.
 *
 * Nothing half-made: every check that can fail is made before anything is written; the project,
 * the identity and its address, and the setup record are written in one transaction; the only
 * step that cannot join it is registering a new namespace (it awaits DNS), so when the
 * transaction fails that namespace and its key are taken back. Setting up again with the same
 * name and domain answers the same identity (200); anything else once set up is a 409.
 */
import { localNamespace } from '../../../../contract/core-rules.ts';
import type { NodeContext } from '../../../context.ts';
import { conflict } from '../../../errors.ts';
import { identityStatus } from '../../core/identities/store/agents.ts';
import { deleteEmptyNodeNamespace } from '../../core/namespaces/store.ts';
import type { CoreServices } from '../../core/services.ts';
import { findSetupRecord, insertSetupRecord, type SetupRecord } from './store.ts';
import type { SetupResult } from '../../../../contract/node/setup.ts';

export class NodeSetup {
  readonly #ctx: NodeContext;
  readonly #services: CoreServices;
  readonly #localDomain: string;

  constructor(services: CoreServices, nodeId: string) {
    this.#services = services;
    this.#ctx = services.ctx;
    this.#localDomain = localNamespace(nodeId);
  }

  async run(input: { name: string; domain?: string | undefined }): Promise<SetupResult> {
    const domain = input.domain ?? this.#localDomain;
    const done = this.#finished();
    if (done !== null) return this.#again(done, input.name, domain);

    // Every refusal comes before the first write.
    const { namespaces } = this.#services;
    const existing = namespaces.isLocal(domain) ? namespaces.get(domain) : null;
    if (existing !== null && !existing.node_controlled) {
      throw conflict(
        'SVC_ERR_NAMESPACE_TAKEN',
        `${domain} is on this node with an outside controller key, so the node cannot give addresses under it; choose another domain`,
      );
    }
    if (existing !== null && namespaces.findAddress(domain, input.name) !== null) {
      throw conflict('SVC_ERR_ADDRESS_TAKEN', `${domain}/${input.name} is already taken on this node; choose another name`);
    }
    const slug = this.#freeSlug(input.name);

    const madeNamespace = existing === null ? await this.#registerNamespace(domain) : null;
    try {
      return this.#ctx.db.transaction(() => {
        // A concurrent setup may have finished while DNS was asked.
        const raced = this.#finished();
        if (raced !== null) return this.#again(raced, input.name, domain);
        const project = this.#services.projects.create({ slug, name: input.name, namespace: domain });
        const identity = this.#services.identities.create(project.project_id, { name: input.name, lifetime: 'persistent' });
        const record: SetupRecord = { agent_id: identity.agent_id, project_id: project.project_id, domain };
        insertSetupRecord(this.#ctx.db, record);
        return this.#result(record, true);
      })();
    } catch (error) {
      if (madeNamespace !== null) this.#takeBack(madeNamespace);
      throw error;
    }
  }

  /** The setup record, while its identity still exists. */
  #finished(): SetupRecord | null {
    const record = findSetupRecord(this.#ctx.db);
    if (record === undefined) return null;
    const status = identityStatus(this.#ctx.db, record.agent_id);
    return status === undefined || status === 'deleted' ? null : record;
  }

  /** A repeated setup: the same answer for the same request, else a clear refusal. */
  #again(record: SetupRecord, name: string, domain: string): SetupResult {
    const result = this.#result(record, false);
    if (result.identity.name === name && record.domain === domain) return result;
    throw conflict('SVC_ERR_SETUP_ALREADY_DONE', `This node is already set up as ${result.address}; add more identities under Identities`);
  }

  #result(record: SetupRecord, created: boolean): SetupResult {
    const { identities, projects } = this.#services;
    const identity = identities.view(identities.row(record.agent_id));
    const project = projects.get(record.project_id);
    return {
      created,
      identity,
      address: identity.address ?? `${record.domain}/${identity.name ?? identity.alias}`,
      project: { project_id: project.project_id, slug: project.slug },
      namespace: { domain: record.domain, local: record.domain === this.#localDomain },
    };
  }

  /** `name`, or `name-2`, `name-3`… when a project already has that slug. */
  #freeSlug(name: string): string {
    const taken = new Set(this.#services.projects.list().map((project) => project.slug));
    if (!taken.has(name)) return name;
    for (let n = 2; ; n++) {
      const candidate = `${name.slice(0, 64 - String(n).length - 1)}-${n}`;
      if (!taken.has(candidate)) return candidate;
    }
  }

  /** A new namespace with a node-held key (DNS and the peer table may refuse it: nothing is kept then). */
  async #registerNamespace(domain: string): Promise<{ domain: string; keyId: string }> {
    const { keyId } = await this.#services.namespaces.registerWithNodeKey(domain);
    return { domain, keyId };
  }

  /**
   * Undoes a namespace this setup registered when the rest failed. The namespace service has no
   * removal (a namespace with addresses must never vanish); this one is minutes old and empty.
   */
  #takeBack(made: { domain: string; keyId: string }): void {
    deleteEmptyNodeNamespace(this.#ctx.db, made.domain, made.keyId);
    this.#ctx.custody.destroyKey(made.keyId);
  }
}
