/**
 * Bearer authentication (spec §5 mode 1). A key is either bound to one identity (mail, chat,
 * self operations) or carries a project's authority (it may only create identities there).
 */
import type { FastifyRequest } from 'fastify';
import type { NodeContext } from '../context.ts';
import { forbidden, unauthorized } from '../errors.ts';
import { touchApiKey } from './api-key-store.ts';
import { findApiKey } from './api-keys.ts';

export interface Principal {
  apiKeyId: string;
  projectId: string;
  /** The identity the key is bound to; null for a project-authority key. */
  agentId: string | null;
}

export interface IdentityPrincipal extends Principal {
  agentId: string;
}

/** The bearer token of a request, or null when there is no Authorization header. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer ([^\s]+)$/.exec(header);
  if (!match) throw unauthorized('SVC_ERR_AUTH_INVALID', 'Invalid Authorization header. Expected: Bearer <token>');
  return match[1] as string;
}

/** last_used_at is for people ("used 3 min ago"), so a minute's precision spares a write per request. */
const LAST_USED_PRECISION_MS = 60_000;
const lastUsedWrites = new WeakMap<NodeContext, Map<string, number>>();

function touch(ctx: NodeContext, apiKeyId: string, now: Date): void {
  let written = lastUsedWrites.get(ctx);
  if (!written) lastUsedWrites.set(ctx, (written = new Map()));
  if (now.getTime() - (written.get(apiKeyId) ?? 0) < LAST_USED_PRECISION_MS) return;
  written.set(apiKeyId, now.getTime());
  touchApiKey(ctx.db, apiKeyId, now.toISOString());
}

export function authenticate(ctx: NodeContext, request: FastifyRequest): Principal {
  const token = bearerToken(request);
  if (token === null) throw unauthorized('SVC_ERR_AUTH_MISSING', 'Authentication required');
  const now = ctx.clock.now();
  const row = findApiKey(ctx.db, token, now.toISOString());
  if (!row) throw unauthorized('SVC_ERR_AUTH_INVALID', 'Invalid API key');
  touch(ctx, row.api_key_id, now);
  return { apiKeyId: row.api_key_id, projectId: row.project_id, agentId: row.agent_id };
}

/** A key bound to an identity: what every self, mail and chat operation needs. */
export function authenticateIdentity(ctx: NodeContext, request: FastifyRequest): IdentityPrincipal {
  const principal = authenticate(ctx, request);
  if (principal.agentId === null) throw forbidden('SVC_ERR_API_KEY_WRONG_KIND', 'This API key is not bound to an identity');
  return principal as IdentityPrincipal;
}

/** A project-authority key: the only kind that may create identities. */
export function authenticateProjectAuthority(ctx: NodeContext, request: FastifyRequest): Principal {
  const principal = authenticate(ctx, request);
  if (principal.agentId !== null) throw forbidden('SVC_ERR_API_KEY_WRONG_KIND', 'Only a project-authority key may create identities');
  return principal;
}
