/**
 * The team scope a team-authenticated route needs, declared in its config beside its auth mode
 * (`config: teamRoute('library:read')`), and the hook that checks it. The library and document
 * surfaces install it in their team-auth context, after team auth and before validation: a
 * certificate without the scope is a 403 whatever the body, and a route that declares no scope
 * fails at start-up, so none ships unscoped.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireScope, type TeamMember } from '../auth/team-envelope.ts';
import { forbidden, unauthorized } from '../errors.ts';
import type { TeamScope } from '../../contract/node/teams.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The team scope a team-authenticated route needs (403 without it), checked before validation. */
    scope?: TeamScope;
  }
}

/** A team route's config: team-certificate auth and the one scope it needs. */
export const teamRoute = <S extends TeamScope>(scope: S) => ({ auth: 'team' as const, scope });

/** Installed in a surface's team-auth context: every route there must declare its scope. */
export function enforceRouteScopes(app: FastifyInstance, surface: string): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.scope === undefined) throw new Error(`${surface} route ${String(route.method)} ${route.url} declares no scope`);
  });
  app.addHook('preValidation', async (request) => {
    const { scope } = request.routeOptions.config;
    const member = memberOf(request);
    // Unreachable after the onRoute check; refusing is the safe answer all the same.
    if (scope === undefined) throw forbidden('SVC_ERR_SCOPE_MISSING', 'No team scope grants this route');
    requireScope(member, scope);
  });
}

/** The verified certificate holder (team auth ran before; routes behind it always have one). */
export function memberOf(request: FastifyRequest): TeamMember {
  if (!request.teamMember) throw unauthorized('SVC_ERR_AUTH_MISSING', 'This route needs a team certificate', 'DIDKey');
  return request.teamMember;
}
