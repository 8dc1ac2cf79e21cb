/**
 * The durable half of the replay cache (replay-cache.ts), in the node's database: signatures seen
 * inside the window (migration 0017) and the first answers of signed writes (migration 0023), so
 * a restart does not reopen the window and a retry after a crash never runs a write twice.
 *
 * A signed write costs two indexed single-row statements: the claim before it runs, the answer
 * before it is sent. Expired rows go at start and then at most once per window, so the table
 * holds about two windows of writes; kept answer bodies are bounded by count and bytes
 * (ANSWER_LIMITS): past either, the oldest bodies are dropped (down to 7/8, so the cost is paid
 * in rare batches) while their signatures stay claimed.
 */
import type { Db } from '../context.ts';
import { ANSWER_LIMITS, type FirstAnswer, type ReplayStore, type SignedWriteRecord } from './replay-cache.ts';

interface RecordRow {
  fingerprint: string | null;
  answer_status: number | null;
  answer_type: string | null;
  answer_body: Buffer | null;
}

/** Evicting stops at this share of each limit. */
const EVICT_TO = 7 / 8;

export class SqliteSignatureStore implements ReplayStore {
  readonly #db: Db;
  readonly #windowMs: number;
  #sweptAtMs: number;
  #keptAnswers = 0;
  #keptBytes = 0;

  constructor(db: Db, windowMs: number, nowMs: number) {
    this.#db = db;
    this.#windowMs = windowMs;
    this.#sweptAtMs = nowMs;
    this.#sweep(nowMs);
  }

  claim(key: string, fingerprint: string, expiresMs: number, nowMs: number): SignedWriteRecord | null {
    if (this.#insert(key, fingerprint, expiresMs, nowMs)) return null;
    const row = this.#db.prepare(`SELECT fingerprint, answer_status, answer_type, answer_body FROM replay_signatures WHERE signature_key = ?`).get(key) as
      RecordRow | undefined;
    // Gone between the two statements is impossible (one connection); refusing is the safe answer.
    if (row === undefined) return { fingerprint: null, status: null, contentType: null, body: null };
    return { fingerprint: row.fingerprint, status: row.answer_status, contentType: row.answer_type, body: row.answer_body };
  }

  answer(key: string, answer: FirstAnswer, nowMs: number): void {
    const { changes } = this.#db
      .prepare(
        `UPDATE replay_signatures SET answer_status = ?, answer_type = ?, answer_body = ?, answered_at = ?
         WHERE signature_key = ? AND fingerprint IS NOT NULL AND answer_status IS NULL`,
      )
      .run(answer.status, answer.contentType, answer.body, nowMs, key);
    if (changes === 0 || answer.body === null) return;
    this.#keptAnswers += 1;
    this.#keptBytes += answer.body.length;
    if (this.#keptAnswers > ANSWER_LIMITS.maxKeptAnswers || this.#keptBytes > ANSWER_LIMITS.maxKeptBytes) this.#evict();
  }

  /**
   * Records `key` (a single-use signature when `fingerprint` is null). A row that expired but was
   * not swept yet is taken over, answer and all: its signature's timestamp can no longer pass the
   * window, so presenting it again is not a replay this store must stop.
   */
  #insert(key: string, fingerprint: string, expiresMs: number, nowMs: number): boolean {
    if (nowMs - this.#sweptAtMs >= this.#windowMs) this.#sweep(nowMs);
    const { changes } = this.#db
      .prepare(
        `INSERT INTO replay_signatures (signature_key, expires_at, fingerprint) VALUES (?, ?, ?)
         ON CONFLICT (signature_key) DO UPDATE SET expires_at = excluded.expires_at, fingerprint = excluded.fingerprint,
           answer_status = NULL, answer_type = NULL, answer_body = NULL, answered_at = NULL
         WHERE replay_signatures.expires_at <= ?`,
      )
      .run(key, expiresMs, fingerprint, nowMs);
    return changes > 0;
  }

  /** Drops the oldest kept bodies until both counts are under 7/8 of their limits. */
  #evict(): void {
    const oldest = this.#db
      .prepare(`SELECT signature_key AS key, length(answer_body) AS bytes FROM replay_signatures WHERE answer_body IS NOT NULL ORDER BY answered_at`)
      .iterate() as IterableIterator<{ key: string; bytes: number }>;
    const drop: string[] = [];
    for (const { key, bytes } of oldest) {
      if (this.#keptAnswers <= ANSWER_LIMITS.maxKeptAnswers * EVICT_TO && this.#keptBytes <= ANSWER_LIMITS.maxKeptBytes * EVICT_TO) break;
      drop.push(key);
      this.#keptAnswers -= 1;
      this.#keptBytes -= bytes;
    }
    const forget = this.#db.prepare(`UPDATE replay_signatures SET answer_body = NULL WHERE signature_key = ?`);
    this.#db.transaction(() => {
      for (const key of drop) forget.run(key);
    })();
  }

  #sweep(nowMs: number): void {
    this.#db.prepare(`DELETE FROM replay_signatures WHERE expires_at <= ?`).run(nowMs);
    this.#sweptAtMs = nowMs;
    const kept = this.#db
      .prepare(`SELECT count(*) AS answers, coalesce(sum(length(answer_body)), 0) AS bytes FROM replay_signatures WHERE answer_body IS NOT NULL`)
      .get() as { answers: number; bytes: number };
    this.#keptAnswers = kept.answers;
    this.#keptBytes = kept.bytes;
  }
}
