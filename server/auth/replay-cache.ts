/**
 * Remembers signatures seen inside the timestamp window so each signed request works once.
 * Upstream accepts a captured request again until its timestamp goes stale; we do not.
 */
export class ReplayCache {
  readonly #windowMs: number;
  readonly #seen = new Map<string, number>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** True the first time `key` is presented inside the window; false for a replay. */
  remember(key: string, nowMs: number): boolean {
    this.#sweep(nowMs);
    if (this.#seen.has(key)) return false;
    this.#seen.set(key, nowMs + 2 * this.#windowMs);
    return true;
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
