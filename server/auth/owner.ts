/**
 * The owner of the node, with two credentials: a per-launch token (desktop: handed to the renderer
 * by the preload; headless: written to node.json for the CLI and other clients), and the browser
 * sessions a one-time UI code is traded for (owner-sessions.ts), which outlive a restart. A
 * browser never receives the owner token.
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
import { isSessionToken, type OwnerSessions, type SignedIn } from './owner-sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The browser session an owner route was called with; null with the owner token. */
    ownerSession?: string | null;
  }
}

export const OWNER_TOKEN_PREFIX = 'svc_ot_';
/** How long a one-time UI code works after it is issued. */
export const UI_CODE_TTL_MS = 5 * 60 * 1000;
/** Outstanding codes kept at most; issuing one more forgets the oldest. */
export const MAX_UI_CODES = 32;

export interface OwnerAccessOptions {
  token?: string;
  /** The node's clock: code expiry follows it (tests move it). */
  clock?: Clock;
  /** The browser sessions codes are traded for. */
  sessions: OwnerSessions;
}

export class OwnerAccess {
  readonly token: string;
  readonly sessions: OwnerSessions;
  readonly #clock: Clock;
  /** Code → the time it stops working (ms); insertion order is issue order. */
  readonly #codes = new Map<string, number>();

  constructor(options: OwnerAccessOptions) {
    this.token = options.token ?? `${OWNER_TOKEN_PREFIX}${randomBytes(32).toString('hex')}`;
    this.sessions = options.sessions;
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
   * Trades a code for a new browser session, once. An unknown or used code and an expired one are
   * refusals of their own, so the browser can tell its user what to do.
   */
  signIn(code: string, client: string | null): SignedIn {
    const expires = this.#codes.get(code);
    if (expires === undefined) throw unauthorized('SVC_ERR_UI_LINK_INVALID', 'This link was already used or is unknown; run `svc-node ui` for a new one');
    this.#codes.delete(code);
    if (this.#clock.now().getTime() >= expires) {
      throw unauthorized(
        'SVC_ERR_UI_LINK_EXPIRED',
        `This link expired (links work for ${UI_CODE_TTL_MS / 60_000} minutes); run \`svc-node ui\` for a fresh one`,
      );
    }
    return this.sessions.create(client);
  }

  /**
   * Who the request's owner credential is: the owner token (null) or a live browser session (its
   * id). Throws a 401 without one, saying why a session no longer works.
   */
  #caller(request: FastifyRequest): string | null {
    const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
    const presented = match?.[1];
    if (presented !== undefined && isSessionToken(presented)) return this.sessions.authenticate(presented);
    if (presented !== undefined && this.#isToken(presented)) return null;
    throw unauthorized('SVC_ERR_OWNER_TOKEN_REQUIRED', 'The owner token or a browser session is required');
  }

  #isToken(presented: string): boolean {
    const given = Buffer.from(presented);
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** True when the request carries the owner token or a live browser session. */
  isOwner(request: FastifyRequest): boolean {
    try {
      request.ownerSession = this.#caller(request);
      return true;
    } catch {
      return false;
    }
  }

  /** Checks the request's owner credential (a 401 without a good one) and notes which it was. */
  require(request: FastifyRequest): void {
    request.ownerSession = this.#caller(request);
  }
}
