/**
 * Remembers signatures seen inside the timestamp window so each signed request works once.
 * Upstream accepts a captured request again until its timestamp goes stale; we do not.
 *
 * Memory is the fast path for every signature. A signed write is also recorded in a durable
 * store (the replay_signatures table, replay-store.ts) before it is accepted, so a restart does
 * not reopen the window: a write captured before the restart is still refused after it (DESIGN §5).
 * Reads stay in memory only: DESIGN §5 lets reads repeat, and a disk write per signed read would
 * cost every read its own transaction and fsync.
 *
 * The alternative, refusing writes signed before the node started, was not taken: a client clock
 * running ahead of the node's gives a capture made before the restart a timestamp after the
 * start, so the window would stay open by up to the allowed skew (300 s). It would also refuse
 * an honest retry of a write sent just before a restart.
 */

/** Signatures remembered across restarts; false from add() means the key was already there. */
export interface DurableSignatureStore {
  /** Records `key` until `expiresMs`; false when it is already recorded and not yet expired. */
  add(key: string, expiresMs: number, nowMs: number): boolean;
}

export interface RememberOptions {
  /** Record the signature durably too (signed writes). */
  durable?: boolean;
}

export class ReplayCache {
  readonly #windowMs: number;
  readonly #seen = new Map<string, number>();
  readonly #durable: DurableSignatureStore | null;

  constructor(windowMs: number, durable: DurableSignatureStore | null = null) {
    this.#windowMs = windowMs;
    this.#durable = durable;
  }

  /** True the first time `key` is presented inside the window; false for a replay. */
  remember(key: string, nowMs: number, options: RememberOptions = {}): boolean {
    this.#sweep(nowMs);
    if (this.#seen.has(key)) return false;
    // Twice the window: a timestamp may be up to one window ahead of now and is accepted until one
    // window after it.
    const expires = nowMs + 2 * this.#windowMs;
    const fresh = !options.durable || this.#durable === null || this.#durable.add(key, expires, nowMs);
    this.#seen.set(key, expires);
    return fresh;
  }

  #sweep(nowMs: number): void {
    for (const [key, expires] of this.#seen) {
      if (expires > nowMs) break; // insertion order is expiry order
      this.#seen.delete(key);
    }
  }

  get size(): number {
    return this.#seen.size;
  }
}
