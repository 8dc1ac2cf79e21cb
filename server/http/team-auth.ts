/**
 * Fastify glue for team-certificate auth: a preValidation hook (after body parsing, so the raw body
 * bytes exist to hash; before validation, so a request without a good envelope is a 401 before any
 * 422) that verifies the envelope and leaves the member on `request.teamMember`.
 */
import type { preValidationAsyncHookHandler } from 'fastify';
import type { ReplayCache } from '../auth/replay-cache.ts';
import { verifyTeamRequest, type TeamKeyring, type TeamMember } from '../auth/team-envelope.ts';
import type { Clock } from '../clock.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by teamAuth on routes behind team-certificate auth. */
    teamMember?: TeamMember;
  }
}

export interface TeamAuthOptions {
  teams: TeamKeyring;
  /** The origins a signed envelope may name as `aud` for this surface. */
  audiences: () => Iterable<string>;
  clock: Clock;
  replay: ReplayCache;
}

export function teamAuth(options: TeamAuthOptions): preValidationAsyncHookHandler {
  return async (request) => {
    request.teamMember = verifyTeamRequest(
      // raw.url: the request target exactly as received (percent-encoding and query intact).
      { method: request.method, url: request.raw.url ?? request.url, headers: request.headers, rawBody: request.rawBody },
      { teams: options.teams, audiences: options.audiences, now: options.clock.now(), replay: options.replay },
    );
  };
}
