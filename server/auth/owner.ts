/**
 * The owner of the node: a per-launch token (desktop: handed to the renderer by the preload;
 * headless: written to node.json) and one-time UI codes that a browser trades for it.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../errors.ts';

export const OWNER_TOKEN_PREFIX = 'svc_ot_';

export class OwnerAccess {
  readonly token: string;
  readonly #codes = new Set<string>();

  constructor(token = `${OWNER_TOKEN_PREFIX}${randomBytes(32).toString('hex')}`) {
    this.token = token;
  }

  /** A fresh one-time code for a UI link. */
  issueCode(): string {
    const code = randomBytes(24).toString('base64url');
    this.#codes.add(code);
    return code;
  }

  /** Trades a code for the owner token, once. */
  redeem(code: string): string | null {
    if (!this.#codes.delete(code)) return null;
    return this.token;
  }

  /** True when the request carries the owner token (compared in constant time). */
  isOwner(request: FastifyRequest): boolean {
    const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
    if (!match) return false;
    const presented = Buffer.from(match[1] as string);
    const expected = Buffer.from(this.token);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }

  require(request: FastifyRequest): void {
    if (!this.isOwner(request)) throw unauthorized('The owner token is required');
  }
}
