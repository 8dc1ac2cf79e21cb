/**
 * Scopes on every team-authenticated library route, from the one table in teams/scopes.ts.
 *
 * Installed in the team-auth context before any route: registering a route the table does not
 * name fails at start-up (a new route cannot ship unscoped), and a preValidation hook after team auth
 * refuses a certificate without the route's scope with a 403 before validation reads its input,
 * so a refused request never touches stored data.
 */
import type { FastifyInstance } from 'fastify';
import { requireScope } from '../../auth/team-envelope.ts';
import { forbidden, unauthorized } from '../../errors.ts';
import { libraryRouteScope } from '../../teams/scopes.ts';

export function enforceRouteScopes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (libraryRouteScope(method, route.url) === undefined) {
        throw new Error(`library route ${method} ${route.url} has no scope in LIBRARY_ROUTE_SCOPES (server/teams/scopes.ts)`);
      }
    }
  });
  app.addHook('preValidation', async (request) => {
    if (!request.teamMember) throw unauthorized('This route needs a team certificate', 'DIDKey');
    const scope = libraryRouteScope(request.method, request.routeOptions.url ?? '');
    // Unreachable after the onRoute check; refusing is the safe answer all the same.
    if (scope === undefined) throw forbidden('No team scope grants this route');
    requireScope(request.teamMember, scope);
  });
}
