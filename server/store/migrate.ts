/**
 * Numbered SQL migrations: `migrations/NNNN-name.sql`, applied in ascending order, each in its own
 * transaction, recorded in `schema_migrations`. A database written by a newer svc-node is refused
 * rather than opened by code that does not know its schema.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type SQLite from 'better-sqlite3-multiple-ciphers';

type Database = SQLite.Database;

const FILE_PATTERN = /^(\d{4})-([a-z0-9][a-z0-9-]*)\.sql$/;

export interface Migration {
  version: number;
  name: string;
  file: string;
}

export interface MigrateResult {
  /** Versions applied by this call, in order. */
  applied: number[];
  /** The highest version recorded after this call (0 for an empty directory). */
  version: number;
}

/**
 * The directory holding the .sql files. By default it sits next to this module. The Electron
 * build bundles this module into out/main/, so that build copies server/store/migrations/*.sql
 * to out/main/migrations/; a missing directory is a packaging error, reported as such.
 */
export function migrationsDir(override?: string | URL): string {
  const dir = override === undefined ? fileURLToPath(new URL('./migrations/', import.meta.url)) : override instanceof URL ? fileURLToPath(override) : override;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new Error(`svc-node migrations directory not found: ${dir} ` + '(a bundled build must copy server/store/migrations/*.sql next to its main script)');
  }
  return dir;
}

/** The migration files in `dir`, ordered by version; stray .sql names and duplicate versions are errors. */
export function listMigrations(dir: string): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.sql')) continue;
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new Error(`migration file name ${file} is not NNNN-name.sql (in ${dir})`);
    migrations.push({ version: Number(match[1]), name: match[2]!, file: join(dir, file) });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new Error(`two migration files share version ${migrations[i]!.version} (in ${dir})`);
    }
  }
  return migrations;
}

/**
 * Applies every migration in `dir` that the database has not recorded. A file must not manage
 * its own transaction; PRAGMA foreign_keys cannot change inside one, so migrations run with
 * foreign keys as the connection has them (ON).
 */
export function migrate(db: Database, dir: string = migrationsDir()): MigrateResult {
  const migrations = listMigrations(dir);
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (' + 'version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const recorded = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const newestRecorded = Math.max(0, ...recorded);
  const newestKnown = migrations.at(-1)?.version ?? 0;
  if (newestRecorded > newestKnown) {
    throw new Error(`database schema v${newestRecorded} is newer than this svc-node (v${newestKnown})`);
  }

  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: number[] = [];
  for (const migration of migrations) {
    if (recorded.has(migration.version)) continue;
    const sql = readFileSync(migration.file, 'utf8');
    try {
      db.transaction(() => {
        db.exec(sql);
        record.run(migration.version, migration.name, new Date().toISOString());
      }).immediate();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`migration ${migration.version}-${migration.name} failed and was rolled back: ${reason}`, {
        cause: error,
      });
    }
    applied.push(migration.version);
  }
  return { applied, version: Math.max(newestRecorded, ...applied) };
}

/** The newest migration a database has recorded (0 for none): what a kit or a backup of it says it needs. */
export function schemaVersion(db: SQLite.Database): number {
  return db.prepare('SELECT coalesce(max(version), 0) FROM schema_migrations').pluck().get() as number;
}
