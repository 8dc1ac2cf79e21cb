/**
 * The `device_link_codes` table (migration 0050-devices.sql): one-time codes a new device joins
 * with, kept as the key derived from each (join-proof.ts). The only module that reads or writes it.
 */
import type { Database } from '../store/database.ts';

export class LinkCodeStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  insert(codeId: string, linkKey: Buffer, createdAt: string, expiresAt: string): void {
    this.#db
      .prepare('INSERT INTO device_link_codes (code_id, link_key, created_at, expires_at) VALUES (?, ?, ?, ?)')
      .run(codeId, linkKey, createdAt, expiresAt);
  }

  /** The key of a code that is unused and unexpired at `now`; null otherwise. */
  usableKey(codeId: string, now: string): Buffer | null {
    const key = this.#db.prepare('SELECT link_key FROM device_link_codes WHERE code_id = ? AND used_at IS NULL AND expires_at > ?').pluck().get(codeId, now);
    return (key as Buffer | undefined) ?? null;
  }

  /**
   * Uses the code for `deviceId` at `now`, once: true only for a code that exists, is unused and
   * has not expired. One UPDATE, so two devices racing with the same code cannot both have it.
   */
  use(codeId: string, deviceId: string, now: string): boolean {
    return (
      this.#db
        .prepare('UPDATE device_link_codes SET used_at = ?, device_id = ? WHERE code_id = ? AND used_at IS NULL AND expires_at > ?')
        .run(now, deviceId, codeId, now).changes === 1
    );
  }

  /** Makes a used code usable again (the join it was used for failed). */
  release(codeId: string): void {
    this.#db.prepare('UPDATE device_link_codes SET used_at = NULL, device_id = NULL WHERE code_id = ?').run(codeId);
  }

  /** Forgets codes that expired before `before` (used or not): they can never work again. */
  prune(before: string): void {
    this.#db.prepare('DELETE FROM device_link_codes WHERE expires_at < ?').run(before);
  }
}
