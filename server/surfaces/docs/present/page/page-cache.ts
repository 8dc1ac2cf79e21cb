/**
 * Finished pages by key, bounded by total bytes, least recently used first out. A key names its
 * inputs exactly (the caller's job), so an entry is never stale; concurrent misses of one key share
 * a single production, so twenty readers opening a fresh link cause one render, not twenty.
 * A failed production is not kept: the next request tries again.
 */
export class PageCache {
  readonly #limitBytes: number;
  readonly #entries = new Map<string, Buffer>();
  readonly #pending = new Map<string, Promise<Buffer>>();
  #bytes = 0;

  constructor(limitBytes: number) {
    this.#limitBytes = limitBytes;
  }

  async get(key: string, produce: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const pending = this.#pending.get(key);
    if (pending !== undefined) return pending;
    const made = produce().then(
      (page) => {
        this.#pending.delete(key);
        this.#put(key, page);
        return page;
      },
      (error: unknown) => {
        this.#pending.delete(key);
        throw error;
      },
    );
    this.#pending.set(key, made);
    return made;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  #put(key: string, page: Buffer): void {
    // A page larger than a quarter of the cache would push out everything else: serve it uncached.
    if (page.length > this.#limitBytes / 4) return;
    this.#entries.set(key, page);
    this.#bytes += page.length;
    for (const [oldKey, oldPage] of this.#entries) {
      if (this.#bytes <= this.#limitBytes) break;
      this.#entries.delete(oldKey);
      this.#bytes -= oldPage.length;
    }
  }
}
