/**
 * The current body of recently used documents, in memory. The durable copy of every body is its
 * version chain (a snapshot plus deltas); keeping the head whole on the document row instead
 * made SQLite rewrite the whole blob on every append, which for a 1 MB document cost more than
 * everything else an append does. This node is the only writer of its database (the data-dir
 * lock), so an entry keyed by version number can never be stale; a miss rebuilds from history.
 * Bounded by total bytes, least recently used first out.
 */
export class HeadBodies {
  readonly #limitBytes: number;
  readonly #entries = new Map<string, { version: number; body: Buffer }>();
  #bytes = 0;

  constructor(limitBytes: number) {
    this.#limitBytes = limitBytes;
  }

  /** The body of `documentId` at `version`, when it is the one held. */
  get(documentId: string, version: number): Buffer | null {
    const entry = this.#entries.get(documentId);
    if (!entry || entry.version !== version) return null;
    this.#entries.delete(documentId);
    this.#entries.set(documentId, entry);
    return entry.body;
  }

  /** Holds `body` as the document's current body (call after the write has committed). */
  set(documentId: string, version: number, body: Buffer): void {
    this.delete(documentId);
    if (body.length > this.#limitBytes) return;
    this.#entries.set(documentId, { version, body });
    this.#bytes += body.length;
    for (const [id, entry] of this.#entries) {
      if (this.#bytes <= this.#limitBytes) break;
      this.#entries.delete(id);
      this.#bytes -= entry.body.length;
    }
  }

  delete(documentId: string): void {
    const entry = this.#entries.get(documentId);
    if (!entry) return;
    this.#entries.delete(documentId);
    this.#bytes -= entry.body.length;
  }

  get bytes(): number {
    return this.#bytes;
  }
}
