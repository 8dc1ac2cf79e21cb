/**
 * The owner's team routes (`/v1/node/teams...`, DESIGN §4): create teams whose key the node holds,
 * issue and revoke member certificates, and sign requests as the owner member so the UI can call
 * the library and document surfaces without ever holding a key. Schemas: contract/node/teams.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AddMemberBody,
  CertificateParams,
  CreateTeamBody,
  InviteBody,
  InviteCancelled,
  InviteList,
  InviteParams,
  IssuedCertificate,
  JoinBody,
  MemberList,
  Revoked,
  SignBody,
  SignedRequest,
  Team,
  TeamList,
  TeamInvite,
  TeamParams,
} from '../../../../contract/node/teams.ts';
import { TeamInvites } from '../../../teams/invites.ts';
import { describeScopes } from '../../../teams/scopes.ts';
import type { CoreServices } from '../../core/services.ts';
import { actingAsClaim } from './acting-as-claim.ts';

const tags = ['owner'];

export async function teamRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { teams, ctx } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const invites = new TeamInvites(ctx, teams, {
    currentKey: (didAw) => services.did.currentKey(didAw),
    identityOfDid: (didAw) => services.identities.aliasOfDid(didAw),
  });

  api.get(
    '/v1/node/teams',
    { config: { auth: 'owner' }, schema: { tags, summary: 'The teams whose key this node holds', response: { 200: TeamList } } },
    async () => ({ teams: teams.list() }),
  );

  api.post(
    '/v1/node/teams',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Creates a team, its key and its owner member in custody', body: CreateTeamBody, response: { 201: Team } },
    },
    async (request, reply) => reply.code(201).send(teams.create(request.body.name, request.body.domain)),
  );

  api.get(
    '/v1/node/teams/:team_id',
    { config: { auth: 'owner' }, schema: { tags, summary: 'A team', params: TeamParams, response: { 200: Team } } },
    async (request) => teams.get(request.params.team_id),
  );

  api.get(
    '/v1/node/teams/:team_id/members',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: "A team's certificates with their members' presence, and the scopes a certificate may hold",
        params: TeamParams,
        response: { 200: MemberList },
      },
    },
    // Ours: the scopes a certificate may hold, so whoever issues one sees the choices; each member's presence.
    async (request) => ({
      team_id: request.params.team_id,
      members: services.teamAgents.membersWithPresence(request.params.team_id),
      available_scopes: describeScopes(),
    }),
  );

  api.post(
    '/v1/node/teams/:team_id/members',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'Issues a member certificate signed by the team key',
        params: TeamParams,
        body: AddMemberBody,
        response: { 201: IssuedCertificate },
      },
    },
    async (request, reply) => reply.code(201).send(teams.addMember(request.params.team_id, request.body)),
  );

  api.post(
    '/v1/node/teams/:team_id/members/:certificate_id/revoke',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Revokes a certificate and closes the editable present links it minted', params: CertificateParams, response: { 200: Revoked } },
    },
    async (request) => teams.revoke(request.params.team_id, request.params.certificate_id),
  );

  // Onboarding an agent that holds its own key (ours): the owner makes a one-time code, the
  // agent presents it with its did:key, signed with that key, and gets its certificate.
  api.post(
    '/v1/node/teams/:team_id/invites',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'A one-time join code for an agent under an alias (shown once; kept hashed; expires)',
        params: TeamParams,
        body: InviteBody,
        response: { 201: TeamInvite },
      },
    },
    async (request, reply) => reply.code(201).send(invites.create(request.params.team_id, request.body)),
  );

  api.get(
    '/v1/node/teams/:team_id/invites',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: "A team's invites that still work (never their codes)", params: TeamParams, response: { 200: InviteList } },
    },
    async (request) => invites.pending(request.params.team_id),
  );

  api.delete(
    '/v1/node/teams/:team_id/invites/:invite_id',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Cancels an invite: its code stops working', params: InviteParams, response: { 200: InviteCancelled } },
    },
    async (request) => invites.cancel(request.params.team_id, request.params.invite_id),
  );

  api.post(
    '/v1/team/join',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['team'],
        summary: "Redeems a join code for a certificate naming the agent's own did:key (signed with it)",
        body: JoinBody,
        response: { 201: IssuedCertificate },
      },
    },
    async (request, reply) => reply.code(201).send(invites.join(request.body)),
  );

  // The envelope names the surface's origin as `aud`; the UI sends the request itself.
  api.post(
    '/v1/node/teams/:team_id/sign',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: 'Signs one library or documents request as the owner member',
        params: TeamParams,
        body: SignBody,
        response: { 200: SignedRequest },
      },
    },
    async (request) => {
      const { team_id } = request.params;
      const { method, path, body, surface = 'library', acting_as } = request.body;
      const aud = surface === 'docs' ? ctx.urls.docs_url : ctx.urls.library_url;
      // Who the app acts as, inside what the owner member signs: document versions record it.
      const extra = acting_as === undefined ? undefined : { acting_as: { ...actingAsClaim(services.identities, acting_as) } };
      return { headers: teams.signAsOwner(team_id, { method, path, body, aud, extra }), url: `${aud}${path}` };
    },
  );
}
