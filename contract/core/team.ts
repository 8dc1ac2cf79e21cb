/**
 * The team surface upstream's clients call on the core (docs/adr/0003-request-authentication.md): a
 * member holding its own key and a team certificate this node issued connects once
 * (`POST /v1/connect`), which makes it an identity of the team's project, self-custodial (the node
 * holds no key for it). Every route here is team-certificate auth (or an API key bound to such an
 * identity).
 */
import { z } from 'zod';
import { EncryptionKeyAssertion } from './encryption-keys.ts';
import { Lifetime } from './identities.ts';

/** `POST /v1/connect`: what the client says about where it runs (upstream's limits). */
export const ConnectBody = z.object({
  hostname: z.string().max(256).optional(),
  workspace_path: z.string().max(1024).optional(),
  repo_origin: z.string().max(1024).optional(),
  role: z.string().max(50).optional(),
  human_name: z.string().max(64).optional(),
  agent_type: z.string().max(32).optional(),
});
export type ConnectInput = z.output<typeof ConnectBody>;

export const Connected = z.object({
  team_id: z.string(),
  alias: z.string(),
  agent_id: z.string(),
  workspace_id: z.string(),
  role: z.string(),
  did_key: z.string(),
  /** The member's did:svc (persistent certificates); null for an ephemeral member. */
  did_aw: z.string().nullable(),
  address: z.string().nullable(),
  lifetime: Lifetime,
  /** Always `self`: the client keeps its key; mail and chat it sends must be client-signed. */
  custody: z.literal('self'),
  /** False when the member had connected before (the same key and alias): the same identity. */
  created: z.boolean(),
});
export type Connected = z.output<typeof Connected>;

/** `GET /v1/team`. */
export const TeamInfo = z.object({
  team_id: z.string(),
  namespace: z.string(),
  team_name: z.string(),
  team_did_key: z.string(),
  member_count: z.number().int(),
});
export type TeamInfo = z.output<typeof TeamInfo>;

/** One connected member, with presence as this node knows it. */
export const TeamAgent = z.object({
  agent_id: z.string(),
  alias: z.string(),
  did_key: z.string(),
  did_aw: z.string().nullable(),
  address: z.string().nullable(),
  human_name: z.string(),
  /** The member's end-to-end encryption key assertion, when it published one that is valid now. */
  encryption_key: EncryptionKeyAssertion.optional(),
  agent_type: z.string(),
  workspace_id: z.string(),
  workspace_type: z.string(),
  role: z.string(),
  hostname: z.string(),
  workspace_path: z.string(),
  repo: z.string(),
  /** `online` or `offline`. */
  status: z.enum(['online', 'offline']),
  online: z.boolean(),
  last_seen: z.string().nullable(),
  lifetime: Lifetime,
});
export type TeamAgent = z.output<typeof TeamAgent>;

/**
 * `GET /v1/teams/{team_id}/agents/{alias}` (upstream's agent detail; its channel client asks it of
 * every same-team sender, to pin the sender's key on first use): a member of the team asks.
 */
export const TeamAgentParams = z.object({ team_id: z.string().min(3).max(320), alias: z.string().min(1).max(128) });
export const TeamAgentDetail = TeamAgent.extend({ created_at: z.string() });
export type TeamAgentDetail = z.output<typeof TeamAgentDetail>;

/** `GET /v1/agents`. */
export const TeamAgents = z.object({ team_id: z.string(), agents: z.array(TeamAgent) });
export type TeamAgents = z.output<typeof TeamAgents>;

/** `POST /v1/agents/heartbeat`. */
export const Heartbeat = z.object({ agent_id: z.string(), alias: z.string(), last_seen_at: z.string(), ttl_seconds: z.number().int() });
export type Heartbeat = z.output<typeof Heartbeat>;

/** A member's workspace fields, as `PATCH /v1/agents/me` sets and answers them (contract/core/identities.ts). */
export interface WorkspaceFields {
  hostname: string;
  workspace_path: string;
}

export const WorkspaceParams = z.object({ workspace_id: z.uuid() });

/** `DELETE /v1/workspaces/{workspace_id}`. */
export const WorkspaceDeleted = z.object({ workspace_id: z.string(), agent_id: z.string(), deleted: z.literal(true) });
export type WorkspaceDeleted = z.output<typeof WorkspaceDeleted>;
