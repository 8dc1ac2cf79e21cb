/**
 * Node-wide bounds on the queries the node sends: a rate budget (a token bucket) and a number in
 * flight at once, with a bounded queue behind it. Past any bound a query fails at once (a
 * DnsRefusal, which callers read as a lookup failure) rather than waiting: a flood of lookups
 * must not turn into requests parked on the node's DNS.
 */
import type { Clock } from '../clock.ts';
import { DnsRefusal } from './errors.ts';
import type { DnsLimits } from './limits.ts';

interface Waiting {
  start(): void;
  timer: NodeJS.Timeout;
}

export class QueryGate {
  readonly #limits: DnsLimits;
  readonly #clock: Clock;
  #tokens: number;
  #refilledAt: number;
  #running = 0;
  readonly #waiting: Waiting[] = [];

  constructor(limits: DnsLimits, clock: Clock) {
    this.#limits = limits;
    this.#clock = clock;
    this.#tokens = limits.rateBurst;
    this.#refilledAt = clock.now().getTime();
  }

  /** Queries in flight and waiting (for tests and diagnostics). */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  /** Runs `query` for `name` within the bounds, or rejects at once with a DnsRefusal. */
  async run<T>(name: string, query: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limits.concurrency && this.#waiting.length >= this.#limits.queueLength) {
      throw new DnsRefusal('EDNSBUSY', name, 'too many DNS queries waiting on this node');
    }
    if (!this.#takeToken()) throw new DnsRefusal('EDNSRATE', name, "this node's DNS query budget is spent for now");
    if (this.#running >= this.#limits.concurrency) await this.#slot(name);
    else this.#running += 1;
    try {
      return await query();
    } finally {
      this.#release();
    }
  }

  #takeToken(): boolean {
    const now = this.#clock.now().getTime();
    this.#tokens = Math.min(this.#limits.rateBurst, this.#tokens + ((now - this.#refilledAt) / 1000) * this.#limits.ratePerSecond);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Waits for a slot; the slot is counted as running when this resolves. */
  #slot(name: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry: Waiting = {
        start: () => {
          clearTimeout(entry.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const index = this.#waiting.indexOf(entry);
          if (index >= 0) this.#waiting.splice(index, 1);
          reject(new DnsRefusal('EDNSBUSY', name, 'no DNS query slot on this node freed in time'));
        }, this.#limits.queueWaitMs),
      };
      this.#waiting.push(entry);
    });
  }

  /** A query ended: its slot goes to the next waiting one, if any. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#running -= 1;
    else next.start();
  }
}
