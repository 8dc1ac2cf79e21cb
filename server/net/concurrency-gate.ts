/**
 * Caps how many outbound requests run at once, per remote origin and in all, so one hostile node
 * (or a flood of messages naming it) cannot hold every socket or make this node a load amplifier.
 * Requests over a cap wait in FIFO order, but only until their own deadline (a queued request
 * still keeps its total timeout), and the waiting lines are capped too: beyond them a request is
 * refused at once as busy rather than piling up.
 */
import { busy, timedOut } from './remote-error.ts';

export interface GateLimits {
  /** Requests running at once to one origin. */
  perOrigin: number;
  /** Requests running at once in all. */
  total: number;
  /** Requests waiting for one origin. */
  waitingPerOrigin: number;
  /** Requests waiting in all. */
  waiting: number;
}

interface Waiter {
  origin: string;
  grant: (release: () => void) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class ConcurrencyGate {
  readonly #limits: GateLimits;
  readonly #running = new Map<string, number>();
  #runningTotal = 0;
  readonly #queue: Waiter[] = [];

  constructor(limits: GateLimits) {
    this.#limits = limits;
  }

  /** Requests running now (for tests and diagnostics). */
  get running(): number {
    return this.#runningTotal;
  }

  /** Requests waiting now. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Resolves with a release function once a slot for `origin` is free; rejects with timed-out
   * when `deadline` (epoch ms) passes first, or at once with busy when the waiting lines are full.
   */
  acquire(origin: string, deadline: number): Promise<() => void> {
    if (this.#free(origin)) return Promise.resolve(this.#take(origin));
    const waitingHere = this.#queue.filter((w) => w.origin === origin).length;
    if (this.#queue.length >= this.#limits.waiting || waitingHere >= this.#limits.waitingPerOrigin) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        origin,
        grant: resolve,
        timer: setTimeout(
          () => {
            this.#queue.splice(this.#queue.indexOf(waiter), 1);
            reject(timedOut());
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.#queue.push(waiter);
    });
  }

  #free(origin: string): boolean {
    return this.#runningTotal < this.#limits.total && (this.#running.get(origin) ?? 0) < this.#limits.perOrigin;
  }

  #take(origin: string): () => void {
    this.#runningTotal++;
    this.#running.set(origin, (this.#running.get(origin) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#runningTotal--;
      const left = (this.#running.get(origin) ?? 1) - 1;
      if (left === 0) this.#running.delete(origin);
      else this.#running.set(origin, left);
      this.#wake();
    };
  }

  /** Grants freed slots to the oldest waiters that fit (a waiter for a full origin lets others pass). */
  #wake(): void {
    for (let i = 0; i < this.#queue.length && this.#runningTotal < this.#limits.total;) {
      const waiter = this.#queue[i]!;
      if (!this.#free(waiter.origin)) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      clearTimeout(waiter.timer);
      waiter.grant(this.#take(waiter.origin));
    }
  }
}
