/**
 * What every document route shares: its services, the scope a team route declares in its config
 * (`config: { auth: 'team', scope: 'docs:read' }`) and the hooks that check, in this order and
 * before any schema is read: the certificate (team auth, 401), the scope (403), then the path's
 * slug (404). So a member without the scope is a 403 whatever its body, and a slug that could
 * never name a document is not found, not a 422.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SLUG_MAX, SLUG_PATTERN } from '../../../../contract/docs/rules.ts';
import { requireScope, type TeamMember } from '../../../auth/team-envelope.ts';
import { forbidden, notFound, unauthorized } from '../../../errors.ts';
import type { TeamScope } from '../../../teams/scopes.ts';
import type { VersionAuthor } from '../documents.ts';
import type { DocsServices } from '../services.ts';
import { actingAsOf } from '../acting-as.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The team scope a team-authenticated route needs (403 without it), checked before validation. */
    scope?: TeamScope;
  }
}

export interface DocsRouteOptions {
  services: DocsServices;
}

export type DocsScope = Extract<TeamScope, 'docs:read' | 'docs:write'>;

/** A team route's config: team-certificate auth and the one scope it needs. */
export const team = (scope: DocsScope) => ({ auth: 'team' as const, scope });

/**
 * Installed in the team-auth context, after team auth: each route must declare its scope (a route
 * without one fails at start-up), and a certificate without it is refused (403).
 */
export function enforceDocsScopes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.scope === undefined) throw new Error(`document route ${String(route.method)} ${route.url} declares no scope`);
  });
  app.addHook('preValidation', async (request) => {
    const { scope } = request.routeOptions.config;
    if (!request.teamMember) throw unauthorized('This route needs a team certificate', 'DIDKey');
    // Unreachable after the onRoute check; refusing is the safe answer all the same.
    if (scope === undefined) throw forbidden('No team scope grants this route');
    requireScope(request.teamMember, scope);
  });
}

/** The verified certificate holder (team auth and the route's scope have been checked). */
export function memberOf(request: FastifyRequest): TeamMember {
  if (!request.teamMember) throw unauthorized('This route needs a team certificate', 'DIDKey');
  return request.teamMember;
}

/** Who is saving: the member, and the identity the app acts as when the owner member signed (acting-as.ts). */
export function authorOf(request: FastifyRequest, member: TeamMember, services: DocsServices): VersionAuthor {
  return { member, acting_as: actingAsOf(request, member, services.ownerCertificateOf) };
}

/** A route-level preValidation hook: the path's slug, when it could never name a document, is simply not found. */
export async function knownSlug(request: FastifyRequest): Promise<void> {
  const slug = (request.params as { slug?: unknown }).slug;
  if (typeof slug !== 'string' || slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug)) throw notFound(`No document ${String(slug)}`);
}
