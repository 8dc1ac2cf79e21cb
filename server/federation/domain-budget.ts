/**
 * What a sending node may deliver here, budgeted by its domain rather than by the address it
 * connects from: a busy but honest node shares one address among all its identities,
 * and a per-request limit would push its whole queue into backoff. A message is charged to its
 * sender's domain only once its signature verified and that sender (address and key) was checked
 * with its node: nobody can spend another domain's budget. Until then it costs the connecting
 * client a request token, as a message of its own would (federation/inbound-batch.ts).
 *
 * Two buckets per domain, messages and bytes, so a flood of small messages and a stream of large
 * ones are both cut off; a spent budget answers with the seconds until it is back.
 */
import type { Clock } from '../clock.ts';
import { TokenBuckets, type RateLimit } from '../http/rate-limit.ts';

export interface DomainBudget {
  messages: RateLimit;
  bytes: RateLimit;
}

/**
 * About twice what one node on these machines stores per second (docs/benchmarks.md), with a
 * burst that lets a peer's backlog after an outage of several minutes arrive without pausing.
 */
export const DEFAULT_DOMAIN_BUDGET: DomainBudget = {
  messages: { burst: 20_000, perSecond: 2_000 },
  bytes: { burst: 256 * 1024 * 1024, perSecond: 32 * 1024 * 1024 },
};

export class DomainBudgets {
  readonly #messages: TokenBuckets;
  readonly #bytes: TokenBuckets;

  constructor(budget: DomainBudget, clock: Clock) {
    this.#messages = new TokenBuckets(budget.messages, clock);
    this.#bytes = new TokenBuckets(budget.bytes, clock);
  }

  /** Charges one message of `bytes` to `domain`: 0 when allowed, else the seconds to wait (nothing charged). */
  take(domain: string, bytes: number): number {
    const wait = Math.max(this.#messages.wait(domain), this.#bytes.wait(domain, bytes));
    if (wait > 0) return wait;
    this.#messages.take(domain);
    this.#bytes.take(domain, bytes);
    return 0;
  }
}
