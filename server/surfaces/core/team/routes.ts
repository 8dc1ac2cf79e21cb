/**
 * The team surface upstream's clients call (docs/adr/0003-request-authentication.md): connect with
 * a team certificate, then the team, its members with presence (and one by alias), heartbeats, and
 * the cleanup of gone ephemeral workspaces. Control (`POST /v1/agents/{alias}/control`) is the
 * control aggregate's route: a team is a project, so "within the team" is its project rule. The
 * workspace's team fields are set with the identity's settings (`PATCH /v1/agents/me`,
 * identities/routes.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ConnectBody,
  Connected,
  Heartbeat,
  TeamAgentDetail,
  TeamAgentParams,
  TeamAgents,
  TeamInfo,
  WorkspaceDeleted,
  WorkspaceParams,
} from '../../../../contract/core/team.ts';
import type { TeamMember } from '../../../auth/team-envelope.ts';
import { identityOf } from '../../../http/route-auth.ts';
import type { CoreServices } from '../services.ts';

const tags = ['team'];

function teamMemberOf(request: FastifyRequest): TeamMember {
  if (request.teamMember === undefined) throw new Error(`${request.method} ${request.routeOptions.url} reads a team member but did not verify one`);
  return request.teamMember;
}

export async function teamRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { teamAgents } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/connect',
    {
      // The one team route a member calls before it is an identity: team auth (the `identity`
      // hook would answer "Agent not connected"), with the core's audiences and compact v1.
      config: { auth: 'team' },
      schema: {
        tags,
        summary: 'Connects a team member (team certificate): creates its self-custodial identity and workspace, or returns them',
        body: ConnectBody,
        response: { 200: Connected },
      },
    },
    async (request) => teamAgents.connect(teamMemberOf(request), request.body),
  );

  api.get('/v1/team', { config: { auth: 'identity' }, schema: { tags, summary: "The caller's team", response: { 200: TeamInfo } } }, async (request) =>
    teamAgents.team(identityOf(request).agentId),
  );

  api.get(
    '/v1/agents',
    {
      config: { auth: 'identity' },
      schema: { tags, summary: "The caller's team members, with presence (online from heartbeats and open event streams)", response: { 200: TeamAgents } },
    },
    async (request) => teamAgents.agents(identityOf(request).agentId),
  );

  api.get(
    '/v1/teams/:team_id/agents/:alias',
    {
      config: { auth: 'identity' },
      schema: {
        tags,
        summary: "A member of the caller's team, by alias (upstream's agent detail: its clients pin a same-team sender's key)",
        params: TeamAgentParams,
        response: { 200: TeamAgentDetail },
      },
    },
    async (request) => teamAgents.agent(identityOf(request).agentId, request.params.team_id, request.params.alias),
  );

  api.post(
    '/v1/agents/heartbeat',
    { config: { auth: 'identity' }, schema: { tags, summary: 'Counts the caller online for the next 30 minutes', response: { 200: Heartbeat } } },
    async (request) => teamAgents.heartbeat(identityOf(request).agentId),
  );

  api.delete(
    '/v1/workspaces/:workspace_id',
    {
      config: { auth: 'identity' },
      schema: {
        tags,
        summary: "Deletes a gone ephemeral workspace of the caller's team (not seen for 30 minutes) and its identity",
        params: WorkspaceParams,
        response: { 200: WorkspaceDeleted },
      },
    },
    async (request) => teamAgents.deleteWorkspace(identityOf(request).agentId, request.params.workspace_id),
  );
}
