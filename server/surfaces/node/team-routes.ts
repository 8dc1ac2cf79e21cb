/**
 * The owner's team routes (`/v1/node/teams...`, DESIGN §4): create teams whose key the node holds,
 * issue and revoke member certificates, and sign requests as the owner member so the UI can call
 * the library and document surfaces without ever holding a key.
 */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../http/validate.ts';
import { describeScopes } from '../../teams/scopes.ts';
import type { CoreServices } from '../core/services.ts';
import { actingAsClaim } from '../docs/acting-as.ts';
import { AddMemberBody, CertificateParams, CreateTeamBody, SignBody, TeamParams } from './team-schemas.ts';

export async function teamRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { teams, ctx } = services;

  app.get('/v1/node/teams', async () => ({ teams: teams.list() }));

  app.post('/v1/node/teams', async (request, reply) => {
    const { name, domain } = parseWith(CreateTeamBody, request.body);
    return reply.code(201).send(teams.create(name, domain));
  });

  app.get('/v1/node/teams/:team_id', async (request) => teams.get(parseWith(TeamParams, request.params, 'path').team_id));

  app.get('/v1/node/teams/:team_id/members', async (request) => {
    const { team_id } = parseWith(TeamParams, request.params, 'path');
    // Ours: the scopes a certificate may hold, so whoever issues one sees the choices.
    return { team_id, members: teams.members(team_id), available_scopes: describeScopes() };
  });

  app.post('/v1/node/teams/:team_id/members', async (request, reply) => {
    const { team_id } = parseWith(TeamParams, request.params, 'path');
    return reply.code(201).send(teams.addMember(team_id, parseWith(AddMemberBody, request.body)));
  });

  app.post('/v1/node/teams/:team_id/members/:certificate_id/revoke', async (request) => {
    const { team_id, certificate_id } = parseWith(CertificateParams, request.params, 'path');
    return teams.revoke(team_id, certificate_id);
  });

  // The envelope names the surface's origin as `aud`; the UI sends the request itself.
  app.post('/v1/node/teams/:team_id/sign', async (request) => {
    const { team_id } = parseWith(TeamParams, request.params, 'path');
    const { method, path, body, surface = 'library', acting_as } = parseWith(SignBody, request.body);
    const aud = surface === 'docs' ? ctx.urls.docs_url : ctx.urls.library_url;
    // Who the app acts as, inside what the owner member signs: document versions record it.
    const extra = acting_as === undefined ? undefined : { acting_as: { ...actingAsClaim(services.identities, acting_as) } };
    return { headers: teams.signAsOwner(team_id, { method, path, body, aud, extra }), url: `${aud}${path}` };
  });
}
