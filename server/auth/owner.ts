/**
 * The owner of the node: a per-launch token (desktop: handed to the renderer by the preload;
 * headless: written to node.json) and one-time UI codes that a browser trades for it.
 *
 * A code is a bearer secret in a URL (printed at start, by `svc-node ui`, in Settings), so it
 * must not stay good for the life of the process: it expires after UI_CODE_TTL_MS, and at most
 * MAX_UI_CODES are outstanding (the oldest is dropped), so links printed and never opened neither
 * pile up nor stay usable.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { systemClock, type Clock } from '../clock.ts';
import { unauthorized } from '../errors.ts';

export const OWNER_TOKEN_PREFIX = 'svc_ot_';
/** How long a one-time UI code works after it is issued. */
export const UI_CODE_TTL_MS = 5 * 60 * 1000;
/** Outstanding codes kept at most; issuing one more forgets the oldest. */
export const MAX_UI_CODES = 32;

export interface OwnerAccessOptions {
  token?: string;
  /** The node's clock: code expiry follows it (tests move it). */
  clock?: Clock;
}

export class OwnerAccess {
  readonly token: string;
  readonly #clock: Clock;
  /** Code → the time it stops working (ms); insertion order is issue order. */
  readonly #codes = new Map<string, number>();

  constructor(options: OwnerAccessOptions = {}) {
    this.token = options.token ?? `${OWNER_TOKEN_PREFIX}${randomBytes(32).toString('hex')}`;
    this.#clock = options.clock ?? systemClock;
  }

  /** A fresh one-time code for a UI link. */
  issueCode(): string {
    const code = randomBytes(24).toString('base64url');
    this.#codes.set(code, this.#clock.now().getTime() + UI_CODE_TTL_MS);
    // Expired codes are kept until pushed out, so redeeming one can say it expired.
    while (this.#codes.size > MAX_UI_CODES) this.#codes.delete(this.#codes.keys().next().value as string);
    return code;
  }

  /**
   * Trades a code for the owner token, once: null for a code that is unknown or already used. An
   * expired code is a refusal of its own, so the browser can tell its user what to do.
   */
  redeem(code: string): string | null {
    const expires = this.#codes.get(code);
    if (expires === undefined) return null;
    this.#codes.delete(code);
    if (this.#clock.now().getTime() >= expires) {
      throw unauthorized('SVC_ERR_UI_LINK_EXPIRED', `This link expired (links work for ${UI_CODE_TTL_MS / 60_000} minutes); run \`svc-node ui\` for a fresh one`);
    }
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
    if (!this.isOwner(request)) throw unauthorized('SVC_ERR_OWNER_TOKEN_REQUIRED', 'The owner token is required');
  }
}
