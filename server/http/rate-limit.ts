/**
 * The peer listener's rate limit (DESIGN §7): a token bucket per client (client-key.ts: the remote
 * address, or behind the tunnel the originator the SSH server reported), so one peer cannot starve
 * the node or the other peers. Loopback clients never meet it: they use the loopback listener.
 * Refusals are a 429 with Retry-After.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.ts';
import { rateLimited } from '../errors.ts';
import { clientKey } from './client-key.ts';

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

  /** Takes one token for `key`: 0 when allowed, else the seconds until one is back. */
  take(key: string): number {
    const now = this.#clock.now().getTime();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#limit.burst, at: now };
    bucket.tokens = Math.min(this.#limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#limit.perSecond);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > 10_000) this.#sweep(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#limit.perSecond));
  }

  #sweep(now: number): void {
    for (const [key, bucket] of this.#buckets) if (now - bucket.at > IDLE_MS) this.#buckets.delete(key);
  }
}

export function installRateLimit(app: FastifyInstance, limit: RateLimit, clock: Clock): void {
  const buckets = new TokenBuckets(limit, clock);
  app.addHook('onRequest', async (request) => {
    const wait = buckets.take(clientKey(request.raw.socket));
    if (wait > 0) throw rateLimited('SVC_ERR_RATE_LIMITED', `Too many requests from ${request.ip}; try again in ${wait} s`, wait);
  });
}
