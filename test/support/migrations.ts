/**
 * A migration's test on data written before it: an in-memory database migrated with the real
 * .sql files up to just before `version`, where the test writes rows as that schema had them;
 * then `upgrade()` runs the migration under test, as a node upgrading would.
 */
import { copyFileSync, mkdtempSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { migrate, migrationsDir, type MigrateResult } from '../../server/store/migrate.ts';

export interface DatabaseBefore {
  db: SQLite.Database;
  /** Applies migration `version` (only it). */
  upgrade(): MigrateResult;
  close(): void;
}

export function databaseBefore(version: number, options: { foreignKeys?: boolean } = {}): DatabaseBefore {
  const dir = mkdtempSync(join(tmpdir(), 'svc-migration-'));
  /** A migrations folder holding the real files up to `last` (inclusive). */
  const upTo = (last: number): string => {
    const out = join(dir, `upto-${last}`);
    mkdirSync(out, { recursive: true });
    for (const file of readdirSync(migrationsDir())) {
      if (file.endsWith('.sql') && Number(file.slice(0, 4)) <= last) copyFileSync(join(migrationsDir(), file), join(out, file));
    }
    return out;
  };
  const db = new SQLite(':memory:');
  if (options.foreignKeys === true) db.pragma('foreign_keys = ON');
  migrate(db, upTo(version - 1));
  return {
    db,
    upgrade: () => migrate(db, upTo(version)),
    close: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
