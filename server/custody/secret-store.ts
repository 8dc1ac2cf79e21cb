/** The `custody_secrets` table (migration 0046-custody-secrets.sql): the only module that reads or writes it; only custody.ts uses it. */
import type { Database } from '../store/database.ts';

/** `backup` seals the node's backups (every device of the node shares it); `device` is this device's own secret (device-key.ts), never shared. */
export type SecretName = 'backup' | 'device';

export interface SecretRow {
  name: SecretName;
  wrapped: Buffer;
  backend: string;
  created_at: string;
}

export class SecretTable {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  get(name: SecretName): SecretRow | undefined {
    return this.#db.prepare('SELECT * FROM custody_secrets WHERE name = ?').get(name) as SecretRow | undefined;
  }

  /** Keeps the first secret of a name: two callers racing to create one both end up with the same. */
  insertIfAbsent(row: SecretRow): void {
    this.#db
      .prepare('INSERT INTO custody_secrets (name, wrapped, backend, created_at) VALUES (@name, @wrapped, @backend, @created_at) ON CONFLICT (name) DO NOTHING')
      .run(row);
  }

  /** Replaces a secret (a restore adopts the kit's). */
  put(row: SecretRow): void {
    this.#db
      .prepare(
        'INSERT INTO custody_secrets (name, wrapped, backend, created_at) VALUES (@name, @wrapped, @backend, @created_at) ' +
          'ON CONFLICT (name) DO UPDATE SET wrapped = excluded.wrapped, backend = excluded.backend, created_at = excluded.created_at',
      )
      .run(row);
  }
}
