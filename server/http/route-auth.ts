/**
 * Routes say how they authenticate in their config (`config: { auth: 'identity' }`), and one hook
 * per mode runs before validation, so a request without a credential is a 401 before any 422, and
 * the handler finds the caller on the request instead of calling an authenticator itself:
 *
 * - `public`: no credential (namespace reads, the catalog, federation inbound, present pages);
 * - `key`: any API key, bound to an identity or a project's authority (`principalOf`);
 * - `identity`: a key bound to an identity (`identityOf`), or a DIDKey-signed request of a
 *   self-custodial identity (docs/adr/0003-request-authentication.md): with a team certificate
 *   (compact v1 or envelope v2; the member must have connected) on every such route, or without
 *   one (identity-only, `X-SVC-DID-AW` optional) on the messaging routes. Either way the route gets
 *   the same identity principal; signed writes take effect once (http/signed-writes.ts);
 * - `project`: a project-authority key (`principalOf`);
 * - `owner`: the node owner's token, or a browser session a sign-in link was traded for (the
 *   owner API, loopback listener only; auth/owner.ts);
 * - `didkey`: a DIDKey signature over fields the route names, checked by the route itself since
 *   what is signed depends on the request (auth/didkey.ts); declared so the description says so;
 * - `team`: a team certificate envelope, checked by the surface's team-auth hook (http/team-auth.ts),
 *   or by the route itself where the member is not an identity yet (`POST /v1/connect`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, authenticateIdentity, authenticateProjectAuthority, type IdentityPrincipal, type Principal } from '../auth/bearer.ts';
import { verifyIdentitySignature } from '../auth/identity-signature.ts';
import { CERTIFICATE_HEADER } from '../auth/team-envelope-client.ts';
import { verifyTeamEnvelope } from '../auth/team-envelope.ts';
import type { NodeContext } from '../context.ts';
import { unauthorized } from '../errors.ts';
import type { CoreServices } from '../surfaces/core/services.ts';
import { claimSignedWrite, installSignedWriteAnswers, isReadMethod } from './signed-writes.ts';

export type AuthMode = 'public' | 'key' | 'identity' | 'project' | 'owner' | 'didkey' | 'team';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the route authenticates its caller. */
    auth?: AuthMode;
    /**
     * A `key` route that also takes the node owner's token (archive and replace of an identity):
     * with that token the hook leaves `principal` null and the route decides (it honours the
     * token on the loopback listener only).
     */
    ownerToo?: boolean;
  }
  interface FastifyRequest {
    /** The API key's principal, for `key`, `identity` and `project` routes. */
    principal: Principal | null;
    /**
     * Throws once the credential the request came with no longer holds (a revoked team
     * certificate): a long request (the event stream) runs it on every pass and ends.
     */
    credentialCheck?: () => void;
  }
}

/** What DIDKey-signed identity auth needs of the core. */
export type SignedIdentityServices = Pick<CoreServices, 'ctx' | 'teams' | 'teamAgents' | 'did'>;

/** Identity-only auth (no certificate) is for these routes only (upstream's messaging routes and MCP). */
const MESSAGING_ROUTES = ['/v1/messages', '/v1/chat', '/v1/contacts', '/v1/conversations', '/mcp'];

export const isMessagingRoute = (url: string): boolean => MESSAGING_ROUTES.some((prefix) => url === prefix || url.startsWith(`${prefix}/`));

/** A request signed with DIDKey (team certificate or identity-only) rather than a Bearer key. */
const isDidKeyRequest = (request: FastifyRequest): boolean => request.headers.authorization?.startsWith('DIDKey ') === true;

/** The core's own origins, as a v2 envelope may name them in `aud` (never taken from Host). */
export function coreAudiences(ctx: NodeContext): string[] {
  const own = ctx.ownOrigins();
  return [...own, ...own.filter((url) => url.includes('//127.0.0.1:')).map((url) => url.replace('//127.0.0.1:', '//localhost:'))];
}

/**
 * A signature claims its write once. A compact signature (v1, identity-only) binds no method or
 * target, so upstream clients sign two empty-bodied writes in one second alike (two acks): the
 * target is part of its key, and the same bytes at another target are another write.
 */
export function signedReplayKey(prefix: string, signature: string, bindsTarget: boolean, request: FastifyRequest): string {
  return bindsTarget ? `${prefix}:${signature}` : `${prefix}:${signature}\n${request.method.toUpperCase()} ${request.raw.url ?? request.url}`;
}

/**
 * The identity of a DIDKey-signed request; null when it was a repeated signed write whose first
 * answer has been sent (the caller returns `reply`).
 */
async function signedIdentity(services: SignedIdentityServices, request: FastifyRequest, reply: FastifyReply): Promise<IdentityPrincipal | null> {
  const { ctx, teams, teamAgents, did } = services;
  const now = ctx.clock.now();
  let caller: { agentId: string; projectId: string };
  let key: string;
  let extra = '';
  if (request.headers[CERTIFICATE_HEADER] !== undefined) {
    const verified = verifyTeamEnvelope(
      { method: request.method, url: request.raw.url ?? request.url, headers: request.headers, rawBody: request.rawBody },
      { teams, audiences: () => coreAudiences(ctx), now, compact: true },
    );
    const { member } = verified;
    caller = teamAgents.callerOf(member);
    request.teamMember = member;
    request.credentialCheck = () => {
      const certificate = teams.certificate(member.certificate_id);
      if (certificate === null || certificate.revoked_at !== null) {
        throw unauthorized('SVC_ERR_TEAM_CERTIFICATE_REVOKED', `Certificate ${member.certificate_id} has been revoked`, 'DIDKey');
      }
    };
    key = signedReplayKey('team', verified.signature, verified.form === 'envelope', request);
    extra = member.certificate_id;
  } else {
    if (!isMessagingRoute(request.routeOptions.url ?? request.url)) {
      throw unauthorized('SVC_ERR_TEAM_CERTIFICATE_REQUIRED', 'Missing X-SVCID-Team-Certificate header: DIDKey auth without a certificate is for mail, chat, contacts and MCP only', 'DIDKey');
    }
    const signed = verifyIdentitySignature(request, now);
    if (signed.didAw !== null && did.currentKey(signed.didAw) !== signed.didKey) {
      throw unauthorized('SVC_ERR_DID_AW_MISMATCH', 'did:svc does not match Authorization did:key (X-SVC-DID-AW against the did:svc log this node holds)', 'DIDKey');
    }
    caller = teamAgents.identityOfKey(signed.didKey, signed.didAw);
    request.credentialCheck = () => teamAgents.requireLiveMembership(caller.agentId);
    key = signedReplayKey('identity', signed.signature, false, request);
  }
  if (!isReadMethod(request.method)) {
    const write = { replay: ctx.replay, clock: ctx.clock, key, scheme: 'DIDKey', extra };
    if (!(await claimSignedWrite(request, reply, write))) return null;
  }
  return { apiKeyId: '', projectId: caller.projectId, agentId: caller.agentId };
}

/**
 * The caller of an identity route: a Bearer key bound to an identity, or a DIDKey-signed request
 * (above). For routes that authenticate in their handler (MCP); null: a repeat was answered.
 */
export async function authenticateIdentityCaller(services: SignedIdentityServices, request: FastifyRequest, reply: FastifyReply): Promise<IdentityPrincipal | null> {
  if (isDidKeyRequest(request)) return signedIdentity(services, request, reply);
  return authenticateIdentity(services.ctx, request);
}

export function installRouteAuth(app: FastifyInstance, services: Pick<CoreServices, 'ctx' | 'owner' | 'teams' | 'teamAgents' | 'did'>): void {
  const { ctx, owner } = services;
  app.decorateRequest('principal', null);
  // Signed writes on identity routes record their first answers (repeats get them).
  installSignedWriteAnswers(app);
  app.addHook('preValidation', async (request, reply) => {
    switch (request.routeOptions.config.auth) {
      case 'key':
        if (request.routeOptions.config.ownerToo === true && owner.isOwner(request)) break;
        request.principal = authenticate(ctx, request);
        break;
      case 'identity': {
        const principal = await authenticateIdentityCaller(services, request, reply);
        if (principal === null) return reply;
        request.principal = principal;
        break;
      }
      case 'project':
        request.principal = authenticateProjectAuthority(ctx, request);
        break;
      case 'owner':
        owner.require(request);
        break;
      default:
        break;
    }
  });
}

function declared(request: FastifyRequest, what: string): never {
  throw new Error(`${request.method} ${request.routeOptions.url} reads ${what} but does not declare the auth mode that sets it`);
}

/** The caller of a `key`, `identity` or `project` route (its hook has run). */
export function principalOf(request: FastifyRequest): Principal {
  return request.principal ?? declared(request, 'a principal');
}

/** The identity of a route declared `auth: 'identity'`. */
export function identityOf(request: FastifyRequest): IdentityPrincipal {
  const principal = principalOf(request);
  return principal.agentId === null ? declared(request, 'an identity') : (principal as IdentityPrincipal);
}
