/**
 * Routes say how they authenticate in their config (`config: { auth: 'identity' }`), and one hook
 * per mode runs before validation, so a request without a credential is a 401 before any 422, and
 * the handler finds the caller on the request instead of calling an authenticator itself:
 *
 * - `public`: no credential (namespace reads, the catalog, federation inbound, present pages);
 * - `key`: any API key, bound to an identity or a project's authority (`principalOf`);
 * - `identity`: a key bound to an identity (`identityOf`);
 * - `project`: a project-authority key (`principalOf`);
 * - `owner`: the node owner's token (the owner API, loopback listener only);
 * - `didkey`: a DIDKey signature over fields the route names, checked by the route itself since
 *   what is signed depends on the request (auth/didkey.ts); declared so the description says so;
 * - `team`: a team certificate envelope, checked by the surface's team-auth hook (http/team-auth.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, authenticateIdentity, authenticateProjectAuthority, type IdentityPrincipal, type Principal } from '../auth/bearer.ts';
import type { CoreServices } from '../surfaces/core/services.ts';

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
  }
}

export function installRouteAuth(app: FastifyInstance, { ctx, owner }: Pick<CoreServices, 'ctx' | 'owner'>): void {
  app.decorateRequest('principal', null);
  app.addHook('preValidation', async (request) => {
    switch (request.routeOptions.config.auth) {
      case 'key':
        if (request.routeOptions.config.ownerToo === true && owner.isOwner(request)) break;
        request.principal = authenticate(ctx, request);
        break;
      case 'identity':
        request.principal = authenticateIdentity(ctx, request);
        break;
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
