/**
 * Recipient resolution for mail and chat. An alias is looked up in the sender's project, and
 * `<project>~<alias>` in another project of this node (upstream's cross-team and cross-project
 * forms); an address `<domain>/<name>` (also when written in an alias field, as upstream takes it),
 * a did or an agent id reaches any identity on this node. An address on a domain this node has no
 * namespace for belongs to another node: mail and chat go there through the federation outbox
 * (`resolveAcrossNodes`).
 */
import type { NodeContext } from '../../../context.ts';
import { isDidKey } from '../../../crypto/did-key.ts';
import { isStableId } from '../../../crypto/stable-id.ts';
import { conflict, invalid, notFound } from '../../../errors.ts';
import type { IdentityService } from '../identities/service.ts';
import type { AgentRow } from '../identities/store/agents.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import { splitAddress } from '../../../../contract/core-rules.ts';
import type { Party, Recipient } from './participants.ts';
import {
  liveIdentityByAlias,
  liveIdentityByDidKey,
  liveIdentityById,
  liveIdentityByProjectAlias,
  liveIdentityByStableId,
  projectSlugOfIdentity,
} from './store/recipients.ts';

export type RecipientSelector = { alias: string } | { address: string } | { did: string } | { agent_id: string };

/** An address written where an alias goes is an address (upstream's alias fields take both). */
const normalSelector = (selector: RecipientSelector): RecipientSelector =>
  'alias' in selector && selector.alias.includes('/') ? { address: selector.alias } : selector;

/** A recipient on another node: known only by its address until that node answers. */
export interface RemoteRecipient {
  remote: true;
  /** The address, as the sender wrote it. */
  to: string;
  /** The address normalised (`<domain>/<name>`, domain lowercase). */
  address: string;
  domain: string;
}

export class Recipients {
  readonly #ctx: NodeContext;
  readonly #identities: IdentityService;
  readonly #namespaces: NamespaceService;

  constructor(ctx: NodeContext, identities: IdentityService, namespaces: NamespaceService) {
    this.#ctx = ctx;
    this.#identities = identities;
    this.#namespaces = namespaces;
  }

  /** The sending identity with its address and keys. */
  party(agent: AgentRow): Party {
    return { agent, alias: agent.alias, address: this.#identities.address(agent), didKey: agent.did_key, stableId: agent.did_aw };
  }

  /**
   * One identity of this node. An alias is the sender's project's only (control signals rely on
   * that); upstream's wider alias forms are mail's and chat's, through `resolveAcrossNodes`.
   */
  resolve(sender: AgentRow, selector: RecipientSelector): Recipient {
    return this.#resolve(sender, selector, false);
  }

  #resolve(sender: AgentRow, selector: RecipientSelector, otherProjects: boolean): Recipient {
    const { agent, to } =
      'alias' in selector
        ? { agent: this.#byAlias(sender, selector.alias, otherProjects), to: selector.alias }
        : 'address' in selector
          ? { agent: this.#byAddress(selector.address), to: selector.address }
          : 'did' in selector
            ? { agent: this.#byDid(selector.did), to: selector.did }
            : this.#byAgentId(sender, selector.agent_id);
    if (agent.status !== 'active') throw conflict('SVC_ERR_RECIPIENT_NOT_ACTIVE', `Recipient ${to} is ${agent.status} and no longer receives messages`);
    return { ...this.party(agent), to };
  }

  /**
   * How `reader` names `agent` without an address (upstream's local form): its alias within the
   * reader's project, `<project>~<alias>` from another project of this node.
   */
  localName(reader: Pick<AgentRow, 'project_id'>, agent: Pick<AgentRow, 'agent_id' | 'project_id' | 'alias'>): string {
    if (agent.project_id === reader.project_id) return agent.alias;
    const slug = projectSlugOfIdentity(this.#ctx.db, agent.agent_id);
    return slug === undefined ? agent.alias : `${slug}~${agent.alias}`;
  }

  #byAlias(sender: AgentRow, alias: string, otherProjects: boolean): AgentRow {
    const tilde = otherProjects ? alias.indexOf('~') : -1;
    if (tilde < 0) {
      const agent = liveIdentityByAlias(this.#ctx.db, sender.project_id, alias);
      if (!agent) throw notFound('SVC_ERR_RECIPIENT_NOT_FOUND', `Recipient not found: no identity with alias ${alias} in this project`);
      return agent;
    }
    const slug = alias.slice(0, tilde);
    const name = alias.slice(tilde + 1);
    if (slug === '' || name === '' || name.includes('~'))
      throw invalid('SVC_ERR_VALIDATION', [
        { loc: ['body'], msg: `${alias}: <project>~<alias> takes exactly one "~" between a project and an alias`, type: 'value_error' },
      ]);
    const agent = liveIdentityByProjectAlias(this.#ctx.db, slug, name);
    if (!agent) throw notFound('SVC_ERR_RECIPIENT_NOT_FOUND', `Recipient not found: no identity with alias ${name} in project ${slug}`);
    return agent;
  }

  /** Upstream's `to_agent_id`: the recipient is addressed by its address, or by its alias as the sender names it. */
  #byAgentId(sender: AgentRow, agentId: string): { agent: AgentRow; to: string } {
    const agent = liveIdentityById(this.#ctx.db, agentId);
    if (!agent) throw notFound('SVC_ERR_RECIPIENT_NOT_FOUND', `Recipient not found: no identity ${agentId} on this node`);
    return { agent, to: this.#identities.address(agent) ?? this.localName(sender, agent) };
  }

  /**
   * Mail's and chat's recipients: any identity of this node (an alias field also takes
   * `<project>~<alias>` and addresses, as upstream's), or one on another node (an address on a
   * domain this node has no namespace for).
   */
  resolveAcrossNodes(sender: AgentRow, given: RecipientSelector): Recipient | RemoteRecipient {
    const selector = normalSelector(given);
    if ('address' in selector) {
      const parts = splitAddress(selector.address);
      if (parts !== null && !this.#namespaces.isLocal(parts.domain)) {
        return { remote: true, to: selector.address, address: `${parts.domain}/${parts.name}`, domain: parts.domain };
      }
    }
    return this.#resolve(sender, selector, true);
  }

  /** The active identity behind an address this node hosts (mail arriving from another node). */
  hosted(address: string): AgentRow & { address: string } {
    const agent = this.#byAddress(address, 'not hosted on this node');
    if (agent.status !== 'active') throw conflict('SVC_ERR_RECIPIENT_NOT_ACTIVE', `Recipient ${address} is ${agent.status} and no longer receives messages`);
    return { ...agent, address: this.#identities.address(agent) ?? address };
  }

  #byAddress(address: string, elsewhere = 'on another node; sending across nodes is not available for this yet'): AgentRow {
    const parts = splitAddress(address);
    if (parts === null) throw invalid('SVC_ERR_ADDRESS_MALFORMED', `${address} is not an address of the form <domain>/<name>`);
    if (!this.#namespaces.isLocal(parts.domain)) throw invalid('SVC_ERR_RECIPIENT_NOT_LOCAL', `Recipient ${address} is ${elsewhere}`);
    const bound = this.#namespaces.findAddress(parts.domain, parts.name);
    if (!bound) throw notFound('SVC_ERR_RECIPIENT_NOT_FOUND', `Recipient address not found: ${address}`);
    const { db } = this.#ctx;
    const agent = bound.did_aw === null ? liveIdentityByDidKey(db, bound.did_key) : liveIdentityByStableId(db, bound.did_aw);
    if (!agent) throw invalid('SVC_ERR_RECIPIENT_NOT_LOCAL', `Recipient ${address} is not hosted on this node`);
    return agent;
  }

  #byDid(did: string): AgentRow {
    if (!isDidKey(did) && !isStableId(did)) throw invalid('SVC_ERR_DID_MALFORMED', `${did} is neither a did:key nor a did:svc`);
    const agent = did.startsWith('did:key:') ? liveIdentityByDidKey(this.#ctx.db, did) : liveIdentityByStableId(this.#ctx.db, did);
    if (!agent) throw notFound('SVC_ERR_RECIPIENT_NOT_FOUND', `Recipient not found: ${did} is not an identity on this node`);
    return agent;
  }
}
