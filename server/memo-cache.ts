/**
 * A small bounded memo for pure, content-keyed results (parsed public keys, verified
 * certificates, parsed profile manifests): the key names the input exactly, so an entry can
 * never be stale, and the bound keeps a hostile stream of distinct inputs from growing memory.
 * Eviction is least-recently-used (a Map keeps insertion order; a hit re-inserts).
 */
export class MemoCache<V> {
  readonly #limit: number;
  readonly #entries = new Map<string, V>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  get(key: string, compute: () => V): V {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const value = compute();
    this.#entries.set(key, value);
    if (this.#entries.size > this.#limit) this.#entries.delete(this.#entries.keys().next().value as string);
    return value;
  }

  get size(): number {
    return this.#entries.size;
  }
}
