/**
 * The durable half of the replay cache: signed writes seen inside the window, in the node's
 * database (migration 0017), so they stay refused after a restart. One indexed upsert per signed
 * write; expired rows go at start and then at most once per window, so the table holds about two
 * windows of writes.
 */
import type { Db } from '../context.ts';
import type { DurableSignatureStore } from './replay-cache.ts';

export class SqliteSignatureStore implements DurableSignatureStore {
  readonly #db: Db;
  readonly #windowMs: number;
  #sweptAtMs: number;

  constructor(db: Db, windowMs: number, nowMs: number) {
    this.#db = db;
    this.#windowMs = windowMs;
    this.#sweptAtMs = nowMs;
    this.#sweep(nowMs);
  }

  add(key: string, expiresMs: number, nowMs: number): boolean {
    if (nowMs - this.#sweptAtMs >= this.#windowMs) this.#sweep(nowMs);
    // A row that expired but was not swept yet is taken over: its signature's timestamp can no
    // longer pass the window, so presenting it again is not a replay this store must stop.
    const { changes } = this.#db
      .prepare(
        `INSERT INTO replay_signatures (signature_key, expires_at) VALUES (?, ?)
         ON CONFLICT (signature_key) DO UPDATE SET expires_at = excluded.expires_at WHERE replay_signatures.expires_at <= ?`,
      )
      .run(key, expiresMs, nowMs);
    return changes > 0;
  }

  #sweep(nowMs: number): void {
    this.#db.prepare(`DELETE FROM replay_signatures WHERE expires_at <= ?`).run(nowMs);
    this.#sweptAtMs = nowMs;
  }
}
