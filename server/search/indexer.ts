/**
 * Moves the mail and chat that writes noted (migration 0031) into the search indexes, a batch at
 * a time, shortly after they are written. FTS5 writes a segment at every commit that touches an
 * index, so one commit for half a second of sends costs what one send's did. Until a row
 * is moved, searches find it in the in-memory index of noted rows (pending-store.ts); after a
 * crash the notes are still there, written with their rows, and the next start moves them.
 */
import type { Db } from '../context.ts';
import { PENDING_KINDS, anythingPending, indexPending } from './pending-store.ts';

/** How often noted rows are looked for, in ms: how long a row waits at most, when the node keeps up. */
export const INDEX_INTERVAL_MS = 500;
/** Rows per transaction of each kind: a backlog moves in steps of tens of ms, requests served between them. */
export const INDEX_BATCH = 500;

export class SearchIndexer {
  readonly #db: Db;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | null = null;
  #stopped = true;

  constructor(db: Db, onError: (error: unknown) => void = () => {}) {
    this.#db = db;
    this.#onError = onError;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops, moving what is noted first, so a node stopped cleanly leaves nothing waiting. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#db.open) this.runToEnd();
  }

  /** Moves batches until nothing is noted. */
  runToEnd(): void {
    while (this.step() > 0) {
      // Each step commits one batch.
    }
  }

  /** One batch of each kind, in one transaction; how many rows moved. */
  step(): number {
    // Looked for first without a transaction: an idle node never asks for the write lock, so it
    // never waits on another process's writes (a tool seeding the database, a backup).
    if (!anythingPending(this.#db)) return 0;
    // IMMEDIATE: the write lock is taken (or waited for) before reading. A deferred transaction
    // that read first could not become a writer once another process had committed meanwhile.
    return this.#db.transaction(() => PENDING_KINDS.reduce((moved, kind) => moved + indexPending(this.#db, kind, INDEX_BATCH), 0)).immediate();
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    // A timer, not a loop: requests are served between batches. A full batch means a backlog,
    // which goes on at once; anything less waits, so that a steady stream is moved in batches.
    this.#timer = setTimeout(() => {
      this.#timer = null;
      let moved = 0;
      try {
        moved = this.step();
      } catch (error) {
        // The notes stay where they are (the batch rolled back), and searches still find them:
        // the next try is only a little later. A node must not stop over its search index.
        this.#onError(error);
      }
      this.#schedule(moved >= INDEX_BATCH ? 0 : INDEX_INTERVAL_MS);
    }, delayMs);
    this.#timer.unref();
  }
}
