import type { FastifyRequest } from 'fastify';
import { requireScope, type TeamMember } from '../../../auth/team-envelope.ts';
import { notFound, unauthorized } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import { SlugParams, SLUG_MAX, SLUG_PATTERN } from '../schemas.ts';
import type { DocsServices } from '../services.ts';
import { actingAsOf } from '../acting-as.ts';
import type { VersionAuthor } from '../documents.ts';

export interface DocsRouteOptions {
  services: DocsServices;
}

export type DocsScope = 'docs:read' | 'docs:write';

/** The verified certificate holder, who must carry `scope` (403 otherwise). */
export function memberWith(request: FastifyRequest, scope: DocsScope): TeamMember {
  if (!request.teamMember) throw unauthorized('This route needs a team certificate', 'DIDKey');
  requireScope(request.teamMember, scope);
  return request.teamMember;
}

/** Who is saving: the member, and the identity the app acts as when the owner member signed (acting-as.ts). */
export function authorOf(request: FastifyRequest, member: TeamMember, services: DocsServices): VersionAuthor {
  return { member, acting_as: actingAsOf(request, member, services.ownerCertificateOf) };
}

/** The path's slug; one that could never name a document is simply not found. */
export function slugOf(params: unknown): string {
  const slug = (params as { slug?: unknown }).slug;
  if (typeof slug !== 'string' || slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug)) throw notFound(`No document ${String(slug)}`);
  return parseWith(SlugParams, { slug }, 'path').slug;
}
