/**
 * Who the app is acting as when it writes to a team. The UI holds no team key: the node's owner
 * sign route signs each request as the team's owner member, so every record would name "owner".
 * The sign route therefore accepts the identity chosen in the app's switcher and puts it, as
 * `acting_as`, inside the envelope it signs; the routes that record who did something (document
 * versions, proposals and their decisions, present links) record it beside the member.
 *
 * Trust: the claim is believed only inside an envelope signed by the team's owner member, whose
 * key custody holds and only the owner sign route uses (behind the owner token). An outside
 * member can write any field into its own envelope, and it is ignored: its certificate names it.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { TeamMember } from '../auth/team-envelope.ts';
import { SIGNED_PAYLOAD_HEADER } from '../auth/team-envelope-client.ts';
import { fromBase64Url } from '../crypto/encoding.ts';
import type { ActingAs } from '../../contract/acting-as.ts';
import type { TeamService } from './service.ts';

/** The identity the app acted as, as it was when the request was signed (`name`: its display name, else its alias). */
export type { ActingAs };

const ActingAsClaim = z.strictObject({
  agent_id: z.string().min(1).max(128),
  alias: z.string().min(1).max(128),
  name: z.string().min(1).max(256),
  address: z.string().max(320).nullable(),
});

/** The signed envelope's `acting_as`, when the owner member signed it; null otherwise or when absent. */
export function actingAsOf(request: FastifyRequest, member: TeamMember, ownerCertificateId: (teamId: string) => string | null): ActingAs | null {
  if (member.certificate_id !== ownerCertificateId(member.team_id)) return null;
  const header = request.headers[SIGNED_PAYLOAD_HEADER];
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined) return null;
  // Team auth already verified these exact bytes (signature, canonical form): only read here.
  const bytes = fromBase64Url(text);
  if (!bytes) return null;
  try {
    const fields = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    const claim = ActingAsClaim.safeParse(fields.acting_as);
    return claim.success ? claim.data : null;
  } catch {
    return null;
  }
}

/** Which certificate a team's owner member holds (null for a team this node does not hold): the only one whose claim counts. */
export function ownerCertificateOf(teams: Pick<TeamService, 'get'>): (teamId: string) => string | null {
  return (teamId) => {
    try {
      return teams.get(teamId).owner_certificate_id;
    } catch {
      return null;
    }
  };
}
