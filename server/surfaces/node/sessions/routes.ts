/**
 * Signing in and the owner's browser sessions: a sign-in link's one-time code traded for a session
 * (`POST /v1/node/session`, the one owner route without an owner credential), the live sessions
 * with the caller's own marked, and revoking one or all others (server/auth/owner-sessions.ts).
 * A revoke nudges the owner feeds (the sessions' service announces it), so a window on a revoked
 * session hears it at once.
 * Schemas: contract/node/sessions.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { OwnerSessionList, RevokedSessions, SessionBody, SessionIdParams, SignedInSession } from '../../../../contract/node/sessions.ts';
import { OWNER_SESSION_IDLE_MS, OWNER_SESSION_MAX_MS } from '../../../auth/owner-sessions.ts';
import type { CoreServices } from '../../core/services.ts';

const tags = ['owner'];
const DAY_MS = 24 * 60 * 60 * 1000;

export async function sessionRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { owner } = services;
  const { sessions } = owner;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/node/session',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: "Exchanges a sign-in link's one-time code for a browser session (kept across restarts; never the owner token)",
        body: SessionBody,
        response: { 200: SignedInSession },
      },
    },
    async (request) => {
      const { token, session } = owner.signIn(request.body.code, request.headers['user-agent'] ?? null);
      return { session_token: token, session };
    },
  );

  api.get(
    '/v1/node/sessions',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: "The owner's live browser sessions, newest first (the caller's own marked current)", response: { 200: OwnerSessionList } },
    },
    async (request) => ({
      sessions: sessions.list(request.ownerSession ?? null),
      idle_days: OWNER_SESSION_IDLE_MS / DAY_MS,
      max_days: OWNER_SESSION_MAX_MS / DAY_MS,
    }),
  );

  api.delete(
    '/v1/node/sessions/:session_id',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Ends a browser session at once (the caller’s own: signing out)', params: SessionIdParams, response: { 200: RevokedSessions } },
    },
    async (request) => {
      sessions.revoke(request.params.session_id);
      return { revoked: 1 };
    },
  );

  api.post(
    '/v1/node/sessions/revoke-others',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Ends every browser session but the caller’s own (with the owner token: every one)', response: { 200: RevokedSessions } },
    },
    async (request) => ({ revoked: sessions.revokeOthers(request.ownerSession ?? null) }),
  );
}
