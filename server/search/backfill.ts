/**
 * Indexes what existed before the search indexes did (migration 0029 recorded, per kind, the last
 * row then and how many there were). New writes are indexed as they happen, so this only catches
 * up, in the background, a batch at a time: each batch commits its rows with its cursor, so a node
 * stopped halfway resumes where it was, and between batches the event loop serves requests.
 * Progress: `SearchService.indexState()` (every search answer carries it) and `onProgress`.
 */
import type { Db } from '../context.ts';
import { indexDocument } from './documents-index.ts';
import { type BackfillRow, backfillRows, backfillRowsBatch, documentsToBackfill, finishBackfill, markDocumentsBackfilled } from './store/backfill.ts';

/** Rows per transaction: large enough to be quick, small enough that a request waits at most a few ms. */
export const BACKFILL_BATCH = 2000;
/** Documents per transaction (each brings all its versions). */
export const DOCUMENT_BATCH = 20;

/** The documents service's reading of version chains, which SQL cannot do. */
export interface DocumentHistory {
  versions(documentId: string): Array<{ version_number: number; created_at: string }>;
  body(documentId: string, currentVersion: number, version: number): Buffer;
}

export interface BackfillProgress {
  kind: BackfillRow['kind'];
  done: number;
  total: number;
}

export class SearchBackfill {
  readonly #db: Db;
  readonly #documents: () => DocumentHistory | null;
  readonly #onProgress: (progress: BackfillProgress) => void;
  #timer: NodeJS.Timeout | null = null;
  #stopped = true;

  constructor(db: Db, documents: () => DocumentHistory | null, onProgress: (progress: BackfillProgress) => void = () => {}) {
    this.#db = db;
    this.#documents = documents;
    this.#onProgress = onProgress;
  }

  /** Catches up in the background until done or stopped. */
  start(): void {
    this.#stopped = false;
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Runs batches until nothing is left (tests, and a node with nothing else to do). */
  runToEnd(): void {
    while (this.step()) {
      // Each step commits one batch.
    }
  }

  /** One batch of the first kind not yet done that can be read now; false when there is none. */
  step(): boolean {
    // Documents wait for the documents service, which alone reads their version chains.
    const readable = (row: BackfillRow) => row.kind !== 'document' || this.#documents() !== null;
    const pending = backfillRows(this.#db).find((row) => row.through !== row.end_id && readable(row));
    if (pending === undefined) return false;
    // IMMEDIATE, as the indexer's: a deferred transaction that read first could not become a
    // writer once another process had committed meanwhile.
    this.#db
      .transaction(() => {
        if (pending.kind === 'document') this.#documentBatch();
        else if (backfillRowsBatch(this.#db, pending.kind, BACKFILL_BATCH) === 0) finishBackfill(this.#db, pending.kind);
      })
      .immediate();
    const now = backfillRows(this.#db).find((row) => row.kind === pending.kind)!;
    this.#onProgress({ kind: now.kind, done: now.done, total: now.total });
    return true;
  }

  #schedule(): void {
    if (this.#stopped) return;
    // A timer, not a loop: requests are served between batches.
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.step()) this.#schedule();
    }, 0);
    this.#timer.unref();
  }

  #documentBatch(): void {
    const history = this.#documents()!;
    const batch = documentsToBackfill(this.#db, DOCUMENT_BATCH);
    if (batch.length === 0) {
      finishBackfill(this.#db, 'document');
      return;
    }
    for (const doc of batch) {
      for (const { version_number: version, created_at } of history.versions(doc.document_id)) {
        const body = history.body(doc.document_id, doc.current_version, version);
        indexDocument(this.#db, { documentId: doc.document_id, teamId: doc.team_id, slug: doc.slug, title: doc.title, version, createdAt: created_at, body });
      }
    }
    markDocumentsBackfilled(this.#db, batch[batch.length - 1]!.document_id, batch.length);
  }
}
