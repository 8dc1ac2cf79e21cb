import type { FastifyRequest } from 'fastify';
import type { TeamMember } from '../../../auth/team-envelope.ts';
import { unauthorized } from '../../../errors.ts';
import type { LibraryServices } from '../services.ts';

export interface LibraryRouteOptions {
  services: LibraryServices;
}

/** The certificate holder the team-auth hook verified; routes behind it always have one. */
export function memberOf(request: FastifyRequest): TeamMember {
  if (!request.teamMember) throw unauthorized('This route needs a team certificate', 'DIDKey');
  return request.teamMember;
}
