/**
 * Fastify glue for team-certificate auth: a preValidation hook (after body parsing, so the raw body
 * bytes exist to hash; before validation, so a request without a good envelope is a 401 before any
 * 422) that verifies the envelope and leaves the member on `request.teamMember`. A signed read may
 * repeat; a signed write is claimed (http/signed-writes.ts): its identical repeat inside the window
 * gets the first answer here and goes no further.
 */
import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify';
import type { ReplayCache } from '../auth/replay-cache.ts';
import { verifyTeamEnvelope, type TeamKeyring, type TeamMember } from '../auth/team-envelope.ts';
import type { Clock } from '../clock.ts';
import { claimSignedWrite, installSignedWriteAnswers, isReadMethod } from './signed-writes.ts';

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
  return async (request, reply) => {
    const { member, signature } = verifyTeamEnvelope(
      // raw.url: the request target exactly as received (percent-encoding and query intact).
      { method: request.method, url: request.raw.url ?? request.url, headers: request.headers, rawBody: request.rawBody },
      { teams: options.teams, audiences: options.audiences, now: options.clock.now() },
    );
    request.teamMember = member;
    if (isReadMethod(request.method)) return;
    // The certificate is outside the signature: the same signature under another one is another
    // request (and its scopes, checked after this hook, are the first request's).
    const write = { replay: options.replay, clock: options.clock, key: `team:${signature}`, scheme: 'DIDKey', extra: member.certificate_id };
    if (!(await claimSignedWrite(request, reply, write))) return reply;
  };
}

/** Team auth for every route registered in `app` after this call, first answers recorded. */
export function installTeamAuth(app: FastifyInstance, options: TeamAuthOptions): void {
  app.addHook('preValidation', teamAuth(options));
  installSignedWriteAnswers(app);
}
