/**
 * What every document route shares: its services, the docs scope a team route declares in its
 * config (`config: team('docs:read')`, checked by http/route-scope.ts), and the path's slug check.
 * In this order and before any schema is read: the certificate (team auth, 401), the scope (403),
 * then the slug (404). So a member without the scope is a 403 whatever its body, and a slug that
 * could never name a document is not found, not a 422.
 */
import type { FastifyRequest } from 'fastify';
import { SLUG_MAX, SLUG_PATTERN } from '../../../contract/docs/rules.ts';
import type { TeamMember } from '../../auth/team-envelope.ts';
import { notFound } from '../../errors.ts';
import { teamRoute } from '../../http/route-scope.ts';
import type { TeamScope } from '../../teams/scopes.ts';
import type { VersionAuthor } from './documents/store/document-versions.ts';
import type { DocsServices } from './services.ts';
import { actingAsOf } from '../../teams/acting-as.ts';

export interface DocsRouteOptions {
  services: DocsServices;
}

export type DocsScope = Extract<TeamScope, 'docs:read' | 'docs:write'>;

/** A document route's config: team-certificate auth and the one docs scope it needs. */
export const team = (scope: DocsScope) => teamRoute(scope);

/** Who is saving: the member, and the identity the app acts as when the owner member signed (acting-as.ts). */
export function authorOf(request: FastifyRequest, member: TeamMember, services: DocsServices): VersionAuthor {
  return { member, acting_as: actingAsOf(request, member, services.ownerCertificateOf) };
}

/** A route-level preValidation hook: the path's slug, when it could never name a document, is simply not found. */
export async function knownSlug(request: FastifyRequest): Promise<void> {
  const slug = (request.params as { slug?: unknown }).slug;
  if (typeof slug !== 'string' || slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug))
    throw notFound('SVC_ERR_DOCUMENT_NOT_FOUND', `No document ${String(slug)}`);
}
