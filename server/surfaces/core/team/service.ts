/**
 * Team-certificate identities on the core (docs/adr/0004-custody-model.md): a member whose
 * certificate this node issued connects once and becomes a self-custodial identity of the team's
 * project (the node holds no key for it: what it sends, it signs). Mail, chat, contacts, control,
 * events and MCP then serve it as any identity; this service answers who a verified member is
 * (auth), connects it, lists the team with presence, and deletes gone ephemeral workspaces.
 */
import { randomUUID } from 'node:crypto';
import type { TeamMember } from '../../../auth/team-envelope.ts';
import type { NodeContext } from '../../../context.ts';
import { conflict, forbidden, notFound, unauthorized } from '../../../errors.ts';
import { identityTopic, TEAMS_TOPIC } from '../../../events/bus.ts';
import type { TeamService } from '../../../teams/service.ts';
import type { DidRegistry } from '../did/registry.ts';
import { appendAgentLog } from '../identities/agent-log.ts';
import type { IdentityPresence } from '../identities/presence.ts';
import type { IdentityService } from '../identities/service.ts';
import {
  aliasTaken,
  hostedIdentityOfDid,
  hostedIdentityOfDidKey,
  insertIdentity,
  setIdentityStatus,
  updateIdentitySettings,
} from '../identities/store/agents.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import type { ProjectService } from '../projects/service.ts';
import {
  findWorkspace,
  insertTeamAgent,
  insertTeamProject,
  liveAgentByAlias,
  liveAgentByKey,
  liveAgentOfIdentity,
  liveAgentsOfCertificate,
  liveAgentsOfTeam,
  markWorkspaceDeleted,
  teamProjectOf,
  updateWorkspace,
  workspacesOfTeam,
  type ConnectedAgent,
} from './store.ts';
import type { EncryptionKeyAssertion } from '../../../../contract/core/encryption-keys.ts';
import type { ListedMember } from '../../../../contract/node/teams.ts';
import type {
  Connected,
  ConnectInput,
  Heartbeat,
  TeamAgent,
  TeamAgentDetail,
  TeamAgents,
  TeamInfo,
  WorkspaceDeleted,
  WorkspaceFields,
} from '../../../../contract/core/team.ts';

/** Upstream's rule: a workspace seen in the last 30 minutes is not gone. */
export const WORKSPACE_GONE_AFTER_MS = 30 * 60 * 1000;
const SLUG_MAX = 64;

/** The identity a verified caller acts as. */
export interface TeamCaller {
  agentId: string;
  projectId: string;
}

export interface TeamAgentDeps {
  teams: TeamService;
  projects: ProjectService;
  namespaces: NamespaceService;
  did: DidRegistry;
  identities: IdentityService;
  presence: IdentityPresence;
}

export class TeamAgentService {
  readonly #ctx: NodeContext;
  readonly #deps: TeamAgentDeps;

  constructor(ctx: NodeContext, deps: TeamAgentDeps) {
    this.#ctx = ctx;
    this.#deps = deps;
    // Revoked: its member's streams wake, find the certificate gone (credential check) and end.
    deps.teams.afterRevoke((certificateId) => {
      for (const agentId of liveAgentsOfCertificate(ctx.db, certificateId)) ctx.bus.publish(identityTopic(agentId));
    });
  }

  /**
   * The identity of a verified member (upstream's pipeline ends here): 403 when it never
   * connected. A member presenting a newer certificate for the same key and alias moves its
   * workspace to it, so revoking that one is what ends its access.
   */
  callerOf(member: TeamMember): TeamCaller {
    const agent = liveAgentByKey(this.#ctx.db, member.team_id, member.did_key);
    if (!agent || agent.status !== 'active' || agent.alias !== member.alias) {
      throw forbidden('SVC_ERR_AGENT_NOT_CONNECTED', `Agent not connected: ${member.alias} in ${member.team_id} (POST /v1/connect first)`);
    }
    if (agent.certificate_id !== member.certificate_id) updateWorkspace(this.#ctx.db, agent.workspace_id, { certificate_id: member.certificate_id });
    return { agentId: agent.agent_id, projectId: agent.project_id };
  }

  /**
   * The identity an identity-only signature (no certificate) speaks for: the one holding its
   * did:svc (already checked to be the key's) or its did:key, active and with that current key.
   */
  identityOfKey(didKey: string, didAw: string | null): TeamCaller {
    const { db } = this.#ctx;
    const row = didAw !== null ? hostedIdentityOfDid(db, didAw) : hostedIdentityOfDidKey(db, didKey);
    if (!row || row.status !== 'active' || row.did_key !== didKey) {
      throw forbidden(
        'SVC_ERR_AGENT_NOT_CONNECTED',
        'Agent not connected: no identity on this node holds this did:key (POST /v1/connect with a team certificate first)',
      );
    }
    this.requireLiveMembership(row.agent_id);
    return { agentId: row.agent_id, projectId: row.project_id };
  }

  /**
   * Identity-only auth reaches a connected member by its key alone: it holds only while the
   * certificate the member last used is live, so revoking it ends that path too.
   */
  requireLiveMembership(agentId: string): void {
    const agent = liveAgentOfIdentity(this.#ctx.db, agentId);
    if (agent === undefined) return;
    const certificate = this.#deps.teams.certificate(agent.certificate_id);
    if (certificate === null || certificate.revoked_at !== null) {
      throw unauthorized('SVC_ERR_TEAM_CERTIFICATE_REVOKED', `Certificate ${agent.certificate_id} has been revoked`, 'DIDKey');
    }
  }

  connect(member: TeamMember, input: ConnectInput): Connected {
    const { db, clock } = this.#ctx;
    const now = clock.now().toISOString();
    const result = db.transaction(() => {
      const existing = liveAgentByKey(db, member.team_id, member.did_key);
      if (existing && existing.status === 'active') {
        if (existing.alias !== member.alias) {
          throw conflict('SVC_ERR_TEAM_AGENT_CONFLICT', `This did:key is already connected to ${member.team_id} as ${existing.alias}`);
        }
        updateWorkspace(db, existing.workspace_id, { ...input, certificate_id: member.certificate_id, last_seen_at: now });
        if (input.role !== undefined || input.human_name !== undefined)
          updateIdentitySettings(db, existing.agent_id, { role: input.role, human_name: input.human_name }, now);
        return { agent: existing, created: false };
      }
      if (existing) markWorkspaceDeleted(db, existing.workspace_id, now);
      const byAlias = liveAgentByAlias(db, member.team_id, member.alias);
      if (byAlias && byAlias.status === 'active') {
        throw conflict('SVC_ERR_TEAM_AGENT_CONFLICT', `Alias ${member.alias} is already connected to ${member.team_id} with another did:key`);
      }
      if (byAlias) markWorkspaceDeleted(db, byAlias.workspace_id, now);
      return { agent: this.#create(member, input, now), created: true };
    })();
    // The owner's member list shows which identity a certificate connected as.
    if (result.created) this.#ctx.bus.publish(TEAMS_TOPIC);
    const view = this.#deps.identities.view(this.#deps.identities.row(result.agent.agent_id));
    return {
      team_id: member.team_id,
      alias: view.alias,
      agent_id: view.agent_id,
      workspace_id: result.agent.workspace_id,
      role: view.role ?? '',
      did_key: view.did_key,
      did_aw: view.did_aw,
      address: view.address,
      lifetime: view.lifetime,
      custody: 'self',
      created: result.created,
    };
  }

  #create(member: TeamMember, input: ConnectInput, now: string): ConnectedAgent {
    const { db } = this.#ctx;
    const projectId = this.#teamProject(member.team_id);
    if (aliasTaken(db, projectId, member.alias))
      throw conflict('SVC_ERR_TEAM_AGENT_CONFLICT', `Alias ${member.alias} is already an identity of ${member.team_id}`);
    const persistent = member.lifetime === 'persistent';
    const didAw = persistent ? member.did_aw : null;
    if (didAw !== null) {
      const current = this.#deps.did.currentKey(didAw);
      if (current === null) throw conflict('SVC_ERR_DID_UNREGISTERED', `Register ${didAw} first: POST /v1/did with its genesis entry signed by this key`);
      if (current !== member.did_key) throw conflict('SVC_ERR_DID_KEY_MISMATCH', `The certificate's key is not the current key of ${didAw}`);
      // One identity per did:svc: a member is a new identity of the team's project, never a second copy of one.
      const hosted = hostedIdentityOfDid(db, didAw);
      if (hosted !== undefined) throw conflict('SVC_ERR_TEAM_AGENT_CONFLICT', `${didAw} is already the identity ${hosted.alias} of this node`);
    }
    const agentId = randomUUID();
    const addressName = member.address?.slice(member.address.indexOf('/') + 1) ?? null;
    insertIdentity(db, {
      agent_id: agentId,
      project_id: projectId,
      alias: member.alias,
      name: persistent ? (addressName ?? member.alias) : null,
      lifetime: member.lifetime,
      custody: 'self',
      key_id: '',
      did_key: member.did_key,
      did_aw: didAw,
      address_reachability: 'public',
      human_name: input.human_name ?? '',
      role: input.role ?? null,
      program: null,
      context: null,
      created_at: now,
      updated_at: now,
    });
    if (persistent && member.address !== null) this.#bindAddress(member.address, member.did_key, didAw);
    appendAgentLog(
      this.#ctx,
      agentId,
      { keyId: '', didKey: member.did_key },
      {
        operation: 'create',
        new_did: member.did_key,
        metadata: { lifetime: member.lifetime, did_aw: didAw, team_id: member.team_id, certificate_id: member.certificate_id },
      },
    );
    const workspaceId = randomUUID();
    insertTeamAgent(db, {
      workspace_id: workspaceId,
      agent_id: agentId,
      team_id: member.team_id,
      certificate_id: member.certificate_id,
      did_key: member.did_key,
      alias: member.alias,
      hostname: input.hostname ?? '',
      workspace_path: input.workspace_path ?? '',
      repo_origin: input.repo_origin ?? '',
      agent_type: input.agent_type ?? 'agent',
      connected_at: now,
      last_seen_at: now,
    });
    return findWorkspace(db, workspaceId) as ConnectedAgent;
  }

  /** The certificate's member_address: bound to this member already, or assigned now when the node controls its namespace. */
  #bindAddress(address: string, didKey: string, didAw: string | null): void {
    const { namespaces } = this.#deps;
    const slash = address.indexOf('/');
    const domain = address.slice(0, slash);
    const name = address.slice(slash + 1);
    const existing = namespaces.isLocal(domain) ? namespaces.findAddress(domain, name) : null;
    if (existing) {
      if (existing.did_key === didKey || (didAw !== null && existing.did_aw === didAw)) return;
      throw conflict('SVC_ERR_TEAM_ADDRESS_CONFLICT', `Address ${address} belongs to another identity`);
    }
    if (namespaces.controllerKeyId(domain) === null) {
      throw conflict(
        'SVC_ERR_TEAM_ADDRESS_CONFLICT',
        `Address ${address} is not registered on this node, and this node does not control ${domain} to assign it`,
      );
    }
    namespaces.assignAddress(domain, name, namespaces.get(domain).controller_did, didKey, didAw ?? undefined);
  }

  /** The project the team's members live in, made at the first connect. */
  #teamProject(teamId: string): string {
    const { db } = this.#ctx;
    const known = teamProjectOf(db, teamId);
    if (known !== undefined) return known;
    const team = this.#deps.teams.get(teamId);
    const held = this.#deps.namespaces.controllerKeyId(team.domain) !== null;
    const readable = `team.${team.name}.${team.domain}`;
    const slug = readable.length <= SLUG_MAX ? readable : `team.${team.name.slice(0, 40)}.${randomUUID().slice(0, 8)}`;
    const taken = this.#deps.projects.list().some((p) => p.slug === slug);
    const project = this.#deps.projects.create({ slug: taken ? `team.${randomUUID()}` : slug, name: teamId, ...(held ? { namespace: team.domain } : {}) });
    insertTeamProject(db, teamId, project.project_id);
    return project.project_id;
  }

  #agentOf(agentId: string): ConnectedAgent {
    const agent = liveAgentOfIdentity(this.#ctx.db, agentId);
    if (!agent) throw notFound('SVC_ERR_WORKSPACE_NOT_FOUND', 'Workspace not found: this identity did not connect to a team (POST /v1/connect)');
    return agent;
  }

  team(agentId: string): TeamInfo {
    const team = this.#deps.teams.get(this.#agentOf(agentId).team_id);
    return { team_id: team.team_id, namespace: team.domain, team_name: team.name, team_did_key: team.team_did_key, member_count: team.member_count };
  }

  agents(agentId: string): TeamAgents {
    const teamId = this.#agentOf(agentId).team_id;
    return { team_id: teamId, agents: liveAgentsOfTeam(this.#ctx.db, teamId).map((agent) => this.#viewOf(agent)) };
  }

  /** One member of the caller's own team, by alias (another team's members are not the caller's to read). */
  agent(agentId: string, teamId: string, alias: string): TeamAgentDetail {
    if (this.#agentOf(agentId).team_id !== teamId) throw forbidden('SVC_ERR_TEAM_NOT_MEMBER', `Not a member of team ${teamId}`);
    const agent = liveAgentByAlias(this.#ctx.db, teamId, alias);
    if (agent === undefined) throw notFound('SVC_ERR_IDENTITY_NOT_FOUND', `Agent not found: no connected member ${alias} in ${teamId}`);
    const { identities } = this.#deps;
    const view = identities.view(identities.row(agent.agent_id));
    return { ...this.#viewOf(agent, view), created_at: view.created_at };
  }

  /** Only an assertion that verifies now is listed: upstream's client refuses the whole list over one bad key. */
  #encryptionKeyOf(agentId: string): { encryption_key?: EncryptionKeyAssertion } {
    const assertion = this.#deps.identities.encryptionKeys.current(this.#deps.identities.row(agentId));
    return assertion === null ? {} : { encryption_key: assertion };
  }

  /** The team of an identity connected as a team member; null for any other identity. */
  teamIdOf(agentId: string): string | null {
    return liveAgentOfIdentity(this.#ctx.db, agentId)?.team_id ?? null;
  }

  #viewOf(agent: ConnectedAgent, view = this.#deps.identities.view(this.#deps.identities.row(agent.agent_id))): TeamAgent {
    const state = this.#deps.presence.of(agent.agent_id);
    return {
      agent_id: agent.agent_id,
      alias: agent.alias,
      did_key: view.did_key,
      did_aw: view.did_aw,
      address: view.address,
      human_name: view.human_name,
      ...this.#encryptionKeyOf(agent.agent_id),
      agent_type: agent.agent_type,
      workspace_id: agent.workspace_id,
      workspace_type: 'agent',
      role: view.role ?? '',
      hostname: agent.hostname,
      workspace_path: agent.workspace_path,
      repo: agent.repo_origin,
      status: state.online ? 'online' : 'offline',
      online: state.online,
      last_seen: state.last_seen ?? agent.last_seen_at,
      lifetime: view.lifetime,
    };
  }

  /**
   * The owner's listing of a team's certificates (`GET /v1/node/teams/{id}/members`), each with
   * the identity connected under it and its presence; the workspaces in one query.
   */
  membersWithPresence(teamId: string): ListedMember[] {
    const members = this.#deps.teams.members(teamId);
    const byCertificate = new Map(workspacesOfTeam(this.#ctx.db, teamId).map((w) => [w.certificate_id, w]));
    return members.map((member) => {
      const workspace = byCertificate.get(member.certificate_id);
      if (workspace === undefined) return { ...member, agent_id: null, online: false, last_seen: null };
      const state = this.#deps.presence.of(workspace.agent_id);
      return {
        ...member,
        agent_id: workspace.agent_id,
        online: state.online && member.revoked_at === null,
        last_seen: state.last_seen ?? workspace.last_seen_at,
      };
    });
  }

  heartbeat(agentId: string): Heartbeat {
    const agent = this.#agentOf(agentId);
    const beat = this.#deps.presence.heartbeat(agentId);
    updateWorkspace(this.#ctx.db, agent.workspace_id, { last_seen_at: beat.last_seen });
    return { agent_id: agentId, alias: agent.alias, last_seen_at: beat.last_seen, ttl_seconds: beat.ttl_seconds };
  }

  /** The caller's team workspace fields; null for an identity that did not connect to a team. */
  workspaceOf(agentId: string): WorkspaceFields | null {
    const agent = liveAgentOfIdentity(this.#ctx.db, agentId);
    return agent ? { hostname: agent.hostname, workspace_path: agent.workspace_path } : null;
  }

  /**
   * A member's workspace fields (`PATCH /v1/agents/me`; its role and human_name are the identity's
   * settings). 404 for an identity that did not connect to a team: it has no workspace.
   */
  updateWorkspace(agentId: string, input: Partial<WorkspaceFields>): WorkspaceFields {
    const agent = liveAgentOfIdentity(this.#ctx.db, agentId);
    if (!agent) {
      throw notFound(
        'SVC_ERR_WORKSPACE_NOT_FOUND',
        "Workspace not found: hostname and workspace_path are a team member's workspace fields, and this identity did not connect to a team (POST /v1/connect)",
      );
    }
    updateWorkspace(this.#ctx.db, agent.workspace_id, { hostname: input.hostname, workspace_path: input.workspace_path });
    return this.workspaceOf(agentId) as WorkspaceFields;
  }

  /** Upstream's cleanup of a gone ephemeral workspace, by a member of the same team. */
  deleteWorkspace(callerAgentId: string, workspaceId: string): WorkspaceDeleted {
    const { db, clock } = this.#ctx;
    const caller = this.#agentOf(callerAgentId);
    const target = findWorkspace(db, workspaceId);
    if (!target || target.team_id !== caller.team_id) throw notFound('SVC_ERR_WORKSPACE_NOT_FOUND', 'Workspace not found');
    const identity = this.#deps.identities.row(target.agent_id);
    const now = clock.now();
    const seen = this.#deps.presence.of(target.agent_id);
    const lastSeen = Math.max(Date.parse(target.last_seen_at), seen.last_seen === null ? 0 : Date.parse(seen.last_seen));
    if (identity.lifetime === 'persistent') throw conflict('SVC_ERR_WORKSPACE_IN_USE', 'A persistent workspace is not deleted this way');
    if (seen.online || now.getTime() - lastSeen < WORKSPACE_GONE_AFTER_MS)
      throw conflict('SVC_ERR_WORKSPACE_IN_USE', 'This workspace was seen in the last 30 minutes');
    db.transaction(() => {
      markWorkspaceDeleted(db, workspaceId, now.toISOString());
      setIdentityStatus(db, target.agent_id, 'deleted', now.toISOString());
    })();
    this.#ctx.bus.publish(identityTopic(target.agent_id));
    return { workspace_id: workspaceId, agent_id: target.agent_id, deleted: true };
  }
}
