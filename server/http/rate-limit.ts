/**
 * The peer listener's rate limit (DESIGN §7): a token bucket per client (client-key.ts: the remote
 * address, or behind the tunnel the originator the SSH server reported), so one peer cannot starve
 * the node or the other peers. Loopback clients never meet it: they use the loopback listener.
 * Refusals are a 429 with Retry-After.
 *
 * Each request takes one token as it arrives. A route whose one request stands for many (a
 * federation batch) settles the cost with `request.clientBudget` once it knows whose work it is:
 * more tokens for anonymous work, the request's own back when its work is charged to a sending
 * domain instead (federation/inbound-batch.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.ts';
import { rateLimited } from '../errors.ts';
import { clientKey } from './client-key.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The peer client's bucket (null on the loopback listener, which has no rate limit). */
    clientBudget: ClientBudget | null;
  }
}

export interface ClientBudget {
  /** Takes `cost` more tokens: 0 when allowed, else the seconds until they are back. */
  take(cost: number): number;
  /** Gives back the request's own token: the route found its work was charged elsewhere. */
  refund(): void;
}

export interface RateLimit {
  /** Requests a client may make at once (the bucket's size). */
  burst: number;
  /** Tokens added back per second. */
  perSecond: number;
}

export const PEER_RATE_LIMIT: RateLimit = { burst: 120, perSecond: 20 };

/** Buckets idle this long are forgotten, so the table stays small. */
const IDLE_MS = 10 * 60_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  readonly #limit: RateLimit;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limit: RateLimit, clock: Clock) {
    this.#limit = limit;
    this.#clock = clock;
  }

  /** Takes `cost` tokens for `key`: 0 when allowed, else the seconds until they are back (nothing taken). */
  take(key: string, cost = 1): number {
    const wait = this.wait(key, cost);
    if (wait === 0) this.#buckets.get(key)!.tokens -= cost;
    return wait;
  }

  /** Puts `cost` tokens back for `key` (never above the burst). */
  give(key: string, cost = 1): void {
    const bucket = this.#buckets.get(key);
    if (bucket !== undefined) bucket.tokens = Math.min(this.#limit.burst, bucket.tokens + cost);
  }

  /** The seconds until `key` has `cost` tokens (0: it has them now), taking none. */
  wait(key: string, cost = 1): number {
    const now = this.#clock.now().getTime();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#limit.burst, at: now };
    bucket.tokens = Math.min(this.#limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#limit.perSecond);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > 10_000) this.#sweep(now);
    if (bucket.tokens >= cost) return 0;
    return Math.max(1, Math.ceil((cost - bucket.tokens) / this.#limit.perSecond));
  }

  #sweep(now: number): void {
    for (const [key, bucket] of this.#buckets) if (now - bucket.at > IDLE_MS) this.#buckets.delete(key);
  }
}

export function installRateLimit(app: FastifyInstance, limit: RateLimit, clock: Clock): void {
  const buckets = new TokenBuckets(limit, clock);
  app.decorateRequest('clientBudget', null);
  app.addHook('onRequest', async (request) => {
    const key = clientKey(request.raw.socket);
    const wait = buckets.take(key);
    if (wait > 0) throw rateLimited('SVC_ERR_RATE_LIMITED', `Too many requests from ${request.ip}; try again in ${wait} s`, wait);
    request.clientBudget = { take: (cost) => buckets.take(key, cost), refund: () => buckets.give(key) };
  });
}
