/** The `custody_keys` table (migration 0001-custody.sql): the only module that reads or writes it; only custody.ts uses it. */
import type { Database } from '../store/database.ts';
import { CustodyError } from './custody-error.ts';

export type KeyPurpose = 'identity' | 'namespace' | 'team' | 'tunnel';

export interface KeyRow {
  key_id: string;
  purpose: KeyPurpose;
  did_key: string;
  wrapped_seed: Buffer | null;
  backend: string;
  created_at: string;
  destroyed_at: string | null;
}

export class KeyTable {
  readonly #db: Database;

  constructor(db: Database) {
    const present = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'custody_keys'").get();
    if (!present) {
      throw new CustodyError('not_attached', 'the database has no custody_keys table (migration 0001-custody is missing)');
    }
    this.#db = db;
  }

  get(keyId: string): KeyRow | undefined {
    return this.#db.prepare('SELECT * FROM custody_keys WHERE key_id = ?').get(keyId) as KeyRow | undefined;
  }

  findLive(didKey: string): KeyRow | undefined {
    return this.#db.prepare('SELECT * FROM custody_keys WHERE did_key = ? AND destroyed_at IS NULL').get(didKey) as KeyRow | undefined;
  }

  /** Every row, destroyed ones too, oldest first: what a recovery kit carries. */
  all(): KeyRow[] {
    return this.#db.prepare('SELECT * FROM custody_keys ORDER BY created_at, key_id').all() as KeyRow[];
  }

  /** Writes a row under its own key id, replacing one of the same id (a restore wraps every key anew). */
  put(row: KeyRow): void {
    this.#db
      .prepare(
        'INSERT INTO custody_keys (key_id, purpose, did_key, wrapped_seed, backend, created_at, destroyed_at) ' +
          'VALUES (@key_id, @purpose, @did_key, @wrapped_seed, @backend, @created_at, @destroyed_at) ' +
          'ON CONFLICT (key_id) DO UPDATE SET purpose = excluded.purpose, did_key = excluded.did_key, wrapped_seed = excluded.wrapped_seed, ' +
          'backend = excluded.backend, created_at = excluded.created_at, destroyed_at = excluded.destroyed_at',
      )
      .run(row);
  }

  insert(row: Omit<KeyRow, 'destroyed_at'>): void {
    this.#db
      .prepare(
        'INSERT INTO custody_keys (key_id, purpose, did_key, wrapped_seed, backend, created_at) ' +
          'VALUES (@key_id, @purpose, @did_key, @wrapped_seed, @backend, @created_at)',
      )
      .run(row);
  }

  /**
   * Drops the wrapped seed. secure_delete zeroes the freed bytes in the page, and the TRUNCATE
   * checkpoint removes the WAL frames that still held the old page.
   */
  destroy(keyId: string, at: string): void {
    const previous = this.#db.pragma('secure_delete', { simple: true });
    this.#db.pragma('secure_delete=ON');
    try {
      this.#db.prepare('UPDATE custody_keys SET wrapped_seed = NULL, destroyed_at = ? WHERE key_id = ? AND destroyed_at IS NULL').run(at, keyId);
    } finally {
      this.#db.pragma(`secure_delete=${Number(previous) ? 'ON' : 'OFF'}`);
    }
    if (!this.#db.inTransaction) this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
