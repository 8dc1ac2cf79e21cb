/**
 * Routes say how they authenticate in their config (`config: { auth: 'identity' }`), and one hook
 * runs each mode before validation, so a request without a credential is a 401 before any 422, and
 * the handler finds the caller on the request instead of calling an authenticator itself. Every
 * route declares its mode, `public` included: a route that declares none (or a mode that does not
 * exist) stops the node at start-up, so none ships without auth by omission.
 *
 * - `public`: no credential (namespace reads, the catalog, federation inbound, present pages);
 *   with `identityIfGiven`, a caller that brings one anyway is authenticated as on an `identity`
 *   route (a bad credential is a 401, never taken as no credential), and the route may do more
 *   for it (`identityIfGiven(request)`): an address on another node looked up for its client;
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
 * - `team`: a team certificate envelope (http/team-auth.ts), with the audiences of the surface the
 *   route sits in; the scope it needs is checked after this (http/route-scope.ts);
 * - `device`: a request signed by another device of the node's owner, on the node's device list
 *   and not revoked (server/devices/device-auth.ts, which the device routes declare with
 *   `declareDeviceAuth`); the route finds the device's id on `request.deviceId`.
 *
 * Certificates are verified by one authenticator (http/team-auth.ts) for `team` and `identity`
 * routes alike, so both claim a signed write under the same replay key.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, authenticateIdentity, authenticateProjectAuthority, type IdentityPrincipal, type Principal } from '../auth/bearer.ts';
import { verifyIdentitySignature } from '../auth/identity-signature.ts';
import { CERTIFICATE_HEADER } from '../auth/team-envelope-client.ts';
import type { OwnerAccess } from '../auth/owner.ts';
import type { TeamKeyring, TeamMember } from '../auth/team-envelope.ts';
import type { NodeContext } from '../context.ts';
import { unauthorized } from '../errors.ts';
import { claimSignedWrite, installSignedWriteAnswers, isReadMethod, signedReplayKey } from './signed-writes.ts';
import { authenticateTeam, declareTeamSurface, type TeamAuthOptions } from './team-auth.ts';

/** Every auth mode a route can declare (above). */
const AUTH_MODES = ['public', 'key', 'identity', 'project', 'owner', 'didkey', 'team', 'device'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

const isAuthMode = (value: unknown): value is AuthMode => (AUTH_MODES as readonly unknown[]).includes(value);

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
    /**
     * A `public` route that answers an identity more than anyone (it looks up addresses on other
     * nodes for it): a request with credentials is authenticated as on an `identity` route.
     */
    identityIfGiven?: boolean;
  }
  interface FastifyInstance {
    /** The auth mode of the routes a third-party plugin registers in this context (`declareRoutesAuth`). */
    routesAuth?: AuthMode;
    /** Checks a device-signed request and answers the device's id (`declareDeviceAuth`). */
    deviceAuth?: DeviceAuthenticator;
  }
  interface FastifyRequest {
    /** The API key's principal, for `key`, `identity` and `project` routes. */
    principal: Principal | null;
    /**
     * Throws once the credential the request came with no longer holds (a revoked team
     * certificate): a long request (the event stream) runs it on every pass and ends.
     */
    credentialCheck?: () => void;
    /** The device that signed the request, on `device` routes. */
    deviceId: string | null;
  }
}

/** Checks the signature of a request from another of the owner's devices; throws a 401 or 403, or answers its id. */
export type DeviceAuthenticator = (request: FastifyRequest) => string;

/** The device routes' checker, for the `device` routes registered in `app`'s context. */
export function declareDeviceAuth(app: FastifyInstance, authenticator: DeviceAuthenticator): void {
  app.decorate('deviceAuth', authenticator);
}

/** The identity a signed caller acts as. */
interface SignedCaller {
  agentId: string;
  projectId: string;
}

/**
 * What route auth calls to resolve a signed caller's identity. The core's services satisfy it (its
 * team agents, its did:svc registry) and the listener wires them in, so http/ does not reach up
 * into the core.
 */
export interface IdentityResolver {
  teamAgents: {
    /** The identity of a verified team member that has connected; throws otherwise. */
    callerOf(member: TeamMember): SignedCaller;
    /** The hosted identity of a did:key (and its did:svc, when the request names one); throws otherwise. */
    identityOfKey(didKey: string, didAw: string | null): SignedCaller;
    /** Throws once the team membership an identity was connected through no longer holds. */
    requireLiveMembership(agentId: string): void;
  };
  did: {
    /** The key a did:svc log this node holds names now, or null. */
    currentKey(didAw: string): string | null;
  };
}

/** What team auth on the core needs: the node and the teams it knows. */
export interface CoreTeamAuthServices {
  ctx: NodeContext;
  teams: TeamKeyring;
}

/** What DIDKey-signed identity auth needs. */
type SignedIdentityServices = CoreTeamAuthServices & IdentityResolver;

/** What the auth hook needs: signed identities, and the owner's access. */
export type RouteAuthServices = SignedIdentityServices & { owner: OwnerAccess };

/** Identity-only auth (no certificate) is for these routes only (upstream's messaging routes and MCP). */
const MESSAGING_ROUTES = ['/v1/messages', '/v1/chat', '/v1/contacts', '/v1/conversations', '/mcp'];

export const isMessagingRoute = (url: string): boolean => MESSAGING_ROUTES.some((prefix) => url === prefix || url.startsWith(`${prefix}/`));

/** A request signed with DIDKey (team certificate or identity-only) rather than a Bearer key. */
const isDidKeyRequest = (request: FastifyRequest): boolean => request.headers.authorization?.startsWith('DIDKey ') === true;

/** The core's own origins, as a v2 envelope may name them in `aud` (never taken from Host). */
function coreAudiences(ctx: NodeContext): string[] {
  const own = ctx.ownOrigins();
  return [...own, ...own.filter((url) => url.includes('//127.0.0.1:')).map((url) => url.replace('//127.0.0.1:', '//localhost:'))];
}

/**
 * Team auth on the core: its own origins, and upstream's compact v1 form too (its clients sign
 * so). Identity routes signed with a certificate take it, and the core surface declares it.
 */
export function coreTeamAuth({ ctx, teams }: CoreTeamAuthServices): TeamAuthOptions {
  return { teams, audiences: () => coreAudiences(ctx), clock: ctx.clock, replay: ctx.replay, compact: true };
}

/**
 * The identity of a DIDKey-signed request; null when it was a repeated signed write whose first
 * answer has been sent (the caller returns `reply`).
 */
async function signedIdentity(services: SignedIdentityServices, request: FastifyRequest, reply: FastifyReply): Promise<IdentityPrincipal | null> {
  const { ctx, teamAgents, did } = services;
  if (request.headers[CERTIFICATE_HEADER] !== undefined) {
    // The member must have connected (its identity exists) before its write is claimed.
    return authenticateTeam(request, reply, coreTeamAuth(services), (member) => principalOfCaller(teamAgents.callerOf(member)));
  }
  if (!isMessagingRoute(request.routeOptions.url ?? request.url)) {
    throw unauthorized(
      'SVC_ERR_TEAM_CERTIFICATE_REQUIRED',
      'Missing X-SVCID-Team-Certificate header: DIDKey auth without a certificate is for mail, chat, contacts and MCP only',
      'DIDKey',
    );
  }
  const signed = verifyIdentitySignature(request, ctx.clock.now());
  if (signed.didAw !== null && did.currentKey(signed.didAw) !== signed.didKey) {
    throw unauthorized(
      'SVC_ERR_DID_AW_MISMATCH',
      'did:svc does not match Authorization did:key (X-SVC-DID-AW against the did:svc log this node holds)',
      'DIDKey',
    );
  }
  const caller = teamAgents.identityOfKey(signed.didKey, signed.didAw);
  request.credentialCheck = () => teamAgents.requireLiveMembership(caller.agentId);
  if (!isReadMethod(request.method)) {
    const write = { replay: ctx.replay, clock: ctx.clock, key: signedReplayKey('identity', signed.signature, false, request), scheme: 'DIDKey' };
    if (!(await claimSignedWrite(request, reply, write))) return null;
  }
  return principalOfCaller(caller);
}

const principalOfCaller = (caller: { agentId: string; projectId: string }): IdentityPrincipal => ({
  apiKeyId: '',
  projectId: caller.projectId,
  agentId: caller.agentId,
});

/**
 * The caller of an identity route: a Bearer key bound to an identity, or a DIDKey-signed request
 * (above); null: a repeat was answered.
 */
async function authenticateIdentityCaller(services: SignedIdentityServices, request: FastifyRequest, reply: FastifyReply): Promise<IdentityPrincipal | null> {
  if (isDidKeyRequest(request)) return signedIdentity(services, request, reply);
  return authenticateIdentity(services.ctx, request);
}

/**
 * For a third-party plugin whose routes cannot carry a config (the API reference's pages, the
 * built UI's files): every route registered in `app`, its own context, from now on that declares
 * no mode itself gets `mode`. Register the plugin inside a context of its own that calls this.
 */
export function declareRoutesAuth(app: FastifyInstance, mode: AuthMode): void {
  app.decorate('routesAuth', mode);
}

const methodsOf = (method: string | string[]): string => [method].flat().join(',');

export function installRouteAuth(app: FastifyInstance, services: RouteAuthServices): void {
  const { ctx, owner } = services;
  app.decorateRequest('principal', null);
  app.decorateRequest('deviceId', null);
  // A team route outside any surface's context: the core's origins, and only the envelope form
  // (the surfaces declare their own, http/team-auth.ts).
  declareTeamSurface(app, { ...coreTeamAuth(services), compact: false });
  // Signed writes record their first answers (repeats get them).
  installSignedWriteAnswers(app);
  // Runs for every route as it is registered (`this`: the context it is registered in), before
  // any hook a surface adds, so a route without a mode never serves a request.
  app.addHook('onRoute', function requireDeclaredAuth(this: FastifyInstance, route) {
    const auth: unknown = route.config?.auth ?? this.routesAuth;
    if (!isAuthMode(auth)) {
      const what = auth === undefined ? 'declares no auth mode' : `declares an unknown auth mode ${JSON.stringify(auth)}`;
      throw new Error(
        `Route ${methodsOf(route.method)} ${route.url} ${what}: set config.auth to one of ${AUTH_MODES.join(', ')} ('public' where no credential is asked for)`,
      );
    }
    route.config = { ...route.config, auth };
  });
  app.addHook('preValidation', async (request, reply) => {
    // No route matched: there is nothing to authenticate for, and the 404 gives nothing away.
    if (request.is404) return;
    const auth = request.routeOptions.config.auth;
    switch (auth) {
      case 'public': {
        if (request.routeOptions.config.identityIfGiven !== true || request.headers.authorization === undefined) return;
        const principal = await authenticateIdentityCaller(services, request, reply);
        if (principal === null) return reply;
        request.principal = principal;
        return;
      }
      case 'didkey':
        // The route checks the signature over the fields it names (auth/didkey.ts).
        return;
      case 'key':
        if (request.routeOptions.config.ownerToo === true && owner.isOwner(request)) return;
        request.principal = authenticate(ctx, request);
        return;
      case 'identity': {
        const principal = await authenticateIdentityCaller(services, request, reply);
        if (principal === null) return reply;
        request.principal = principal;
        return;
      }
      case 'project':
        request.principal = authenticateProjectAuthority(ctx, request);
        return;
      case 'owner':
        owner.require(request);
        return;
      case 'team': {
        const member = await authenticateTeam(request, reply, request.server.teamAuth, (verified) => verified);
        if (member === null) return reply;
        return;
      }
      case 'device': {
        const check = request.server.deviceAuth;
        if (check === undefined) throw unauthorized('SVC_ERR_AUTH_MISSING', 'This route checks no device signatures', 'SVCDevice');
        request.deviceId = check(request);
        return;
      }
      case undefined:
        // Unreachable after the onRoute check; refusing is the safe answer all the same.
        throw unauthorized('SVC_ERR_AUTH_MISSING', 'This route declares no auth mode, so it serves no one', 'Bearer');
      default:
        return unknownMode(auth);
    }
  });
}

/** A mode added to AuthMode without a case above fails to compile here. */
function unknownMode(auth: never): never {
  throw new Error(`No authenticator for auth mode ${String(auth)}`);
}

function declared(request: FastifyRequest, what: string): never {
  throw new Error(`${request.method} ${request.routeOptions.url} reads ${what} but does not declare the auth mode that sets it`);
}

/** The caller of a `key`, `identity` or `project` route (its hook has run). */
export function principalOf(request: FastifyRequest): Principal {
  return request.principal ?? declared(request, 'a principal');
}

/** The identity that called a `public` route declared `identityIfGiven`, when it brought its credentials; null for anyone else. */
export function identityIfGiven(request: FastifyRequest): IdentityPrincipal | null {
  if (request.routeOptions.config.identityIfGiven !== true) return declared(request, 'an optional identity');
  const principal = request.principal;
  return principal === null || principal.agentId === null ? null : (principal as IdentityPrincipal);
}

/** The identity of a route declared `auth: 'identity'`. */
export function identityOf(request: FastifyRequest): IdentityPrincipal {
  const principal = principalOf(request);
  return principal.agentId === null ? declared(request, 'an identity') : (principal as IdentityPrincipal);
}
