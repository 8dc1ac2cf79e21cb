/**
 * Team-certificate auth over HTTP, the one authenticator for every request that presents a team
 * certificate: `team` routes, and `identity` routes signed with a certificate (route-auth.ts runs
 * both). It runs in preValidation (after body parsing, so the raw body bytes exist to hash;
 * before validation, so a request without a good envelope is a 401 before any 422), verifies the
 * envelope (server/auth/team-envelope.ts) and leaves the member on `request.teamMember`. A signed
 * read may repeat; a signed write is claimed once (http/signed-writes.ts): its identical repeat
 * inside the window gets the first answer here and goes no further.
 *
 * Which audiences an envelope may name, and whether upstream's compact v1 form is taken, belong
 * to the surface a route sits in: a surface declares them for its context (`declareTeamSurface`),
 * and a team route anywhere else gets the core's origins and the envelope only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ReplayCache } from '../auth/replay-cache.ts';
import { verifyTeamEnvelope, type TeamKeyring, type TeamMember, type VerifiedTeamRequest } from '../auth/team-envelope.ts';
import type { Clock } from '../clock.ts';
import { unauthorized } from '../errors.ts';
import { claimSignedWrite, isReadMethod, signedReplayKey } from './signed-writes.ts';

export interface TeamAuthOptions {
  teams: TeamKeyring;
  /** The origins a signed envelope may name as `aud` for this surface. */
  audiences: () => Iterable<string>;
  clock: Clock;
  replay: ReplayCache;
  /** Also take upstream's compact v1 signature (it binds no method, target or audience): the core only. */
  compact?: boolean | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified certificate holder of a request that presented a team certificate. */
    teamMember?: TeamMember;
  }
  interface FastifyInstance {
    /** How the team routes registered in this context authenticate (`declareTeamSurface`). */
    teamAuth: TeamAuthOptions;
  }
}

/** The team-auth options of every route registered in `app` (a surface's context) from now on. */
export function declareTeamSurface(app: FastifyInstance, options: TeamAuthOptions): void {
  app.decorate('teamAuth', options);
}

/**
 * One rule for every form: the key a signature claims its write under. An envelope pins method
 * and target, so its signature alone is the key; a compact signature pins neither, and upstream
 * clients sign two empty-bodied writes in one second alike, so there the target is part of the
 * key (the same bytes at another target are another write, as they always were for that form).
 */
const replayKeyOf = (verified: VerifiedTeamRequest, request: FastifyRequest): string =>
  signedReplayKey('team', verified.signature, verified.form === 'envelope', request);

/**
 * Authenticates a request by its team certificate. `admit` is what the route asks of the member
 * beyond a live certificate (an identity route: that it connected); it runs before the write is
 * claimed, so a refused request does not use up its signature. Returns what `admit` returned, or
 * null when this was a repeated signed write whose first answer has been sent (the caller returns
 * `reply`).
 */
export async function authenticateTeam<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  options: TeamAuthOptions,
  admit: (member: TeamMember) => T,
): Promise<T | null> {
  const { teams, clock, replay } = options;
  const verified = verifyTeamEnvelope(
    // raw.url: the request target exactly as received (percent-encoding and query intact).
    { method: request.method, url: request.raw.url ?? request.url, headers: request.headers, rawBody: request.rawBody },
    { teams, audiences: options.audiences, now: clock.now(), compact: options.compact },
  );
  const { member } = verified;
  const admitted = admit(member);
  request.teamMember = member;
  // A long request (the event stream) checks on every pass that the certificate still holds.
  request.credentialCheck = () => {
    const certificate = teams.certificate(member.certificate_id);
    if (certificate === null || certificate.revoked_at !== null) {
      throw unauthorized('SVC_ERR_TEAM_CERTIFICATE_REVOKED', `Certificate ${member.certificate_id} has been revoked`, 'DIDKey');
    }
  };
  if (isReadMethod(request.method)) return admitted;
  // The certificate is outside the signature: the same signature under another one is another
  // request (and its scopes, checked after this, are the first request's).
  const write = { replay, clock, key: replayKeyOf(verified, request), scheme: 'DIDKey', extra: member.certificate_id };
  return (await claimSignedWrite(request, reply, write)) ? admitted : null;
}
