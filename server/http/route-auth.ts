/**
 * Routes say how they authenticate in their config (`config: { auth: 'identity' }`), and one hook
 * per mode runs before validation, so a request without a credential is a 401 before any 422, and
 * the handler finds the caller on the request instead of calling an authenticator itself.
 * Modes not listed here (team certificates, DIDKey signatures, the owner token) still run where
 * they did: their routes move to declared auth surface by surface (issue 15).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateIdentity, type IdentityPrincipal } from '../auth/bearer.ts';
import type { NodeContext } from '../context.ts';

export type AuthMode = 'public' | 'identity';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the route authenticates its caller. */
    auth?: AuthMode;
  }
  interface FastifyRequest {
    /** The identity an `auth: 'identity'` route acts for. */
    identity: IdentityPrincipal | null;
  }
}

export function installRouteAuth(app: FastifyInstance, ctx: NodeContext): void {
  app.decorateRequest('identity', null);
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.auth === 'identity') request.identity = authenticateIdentity(ctx, request);
  });
}

/** The identity of a route declared `auth: 'identity'` (its hook has run). */
export function identityOf(request: FastifyRequest): IdentityPrincipal {
  if (request.identity === null) throw new Error(`${request.method} ${request.routeOptions.url} reads an identity but does not declare auth: 'identity'`);
  return request.identity;
}
