/** The `custody_encryption_keys` table (migration 0037-encryption-keys.sql): the only module that reads or writes it; only custody.ts uses it. */
import type { Database } from '../store/database.ts';

export interface EncryptionKeyRow {
  key_id: string;
  public_key: Buffer;
  wrapped_private: Buffer | null;
  backend: string;
  created_at: string;
  archived_at: string | null;
  destroyed_at: string | null;
}

export class EncryptionKeyTable {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  get(keyId: string): EncryptionKeyRow | undefined {
    return this.#db.prepare('SELECT * FROM custody_encryption_keys WHERE key_id = ?').get(keyId) as EncryptionKeyRow | undefined;
  }

  /** Every row, archived and destroyed ones too, oldest first: what a recovery kit carries. */
  all(): EncryptionKeyRow[] {
    return this.#db.prepare('SELECT * FROM custody_encryption_keys ORDER BY created_at, key_id').all() as EncryptionKeyRow[];
  }

  /** Writes a row under its own key id, replacing one of the same id (a restore wraps every key anew). */
  put(row: EncryptionKeyRow): void {
    this.#db
      .prepare(
        'INSERT INTO custody_encryption_keys (key_id, public_key, wrapped_private, backend, created_at, archived_at, destroyed_at) ' +
          'VALUES (@key_id, @public_key, @wrapped_private, @backend, @created_at, @archived_at, @destroyed_at) ' +
          'ON CONFLICT (key_id) DO UPDATE SET public_key = excluded.public_key, wrapped_private = excluded.wrapped_private, backend = excluded.backend, ' +
          'created_at = excluded.created_at, archived_at = excluded.archived_at, destroyed_at = excluded.destroyed_at',
      )
      .run(row);
  }

  insert(row: Omit<EncryptionKeyRow, 'archived_at' | 'destroyed_at'>): void {
    this.#db
      .prepare(
        'INSERT INTO custody_encryption_keys (key_id, public_key, wrapped_private, backend, created_at) ' +
          'VALUES (@key_id, @public_key, @wrapped_private, @backend, @created_at)',
      )
      .run(row);
  }

  archive(keyId: string, at: string): void {
    this.#db.prepare('UPDATE custody_encryption_keys SET archived_at = ? WHERE key_id = ? AND archived_at IS NULL').run(at, keyId);
  }

  /** Drops the wrapped private key, the way KeyTable.destroy drops a seed (secure_delete, then a checkpoint). */
  destroy(keyId: string, at: string): void {
    const previous = this.#db.pragma('secure_delete', { simple: true });
    this.#db.pragma('secure_delete=ON');
    try {
      this.#db.prepare('UPDATE custody_encryption_keys SET wrapped_private = NULL, destroyed_at = ? WHERE key_id = ? AND destroyed_at IS NULL').run(at, keyId);
    } finally {
      this.#db.pragma(`secure_delete=${Number(previous) ? 'ON' : 'OFF'}`);
    }
    if (!this.#db.inTransaction) this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
