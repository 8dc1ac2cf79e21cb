/**
 * The node's one database: a SQLCipher v4 file (raw 256-bit key from custody), WAL, one writer.
 */
import { closeSync, mkdirSync, openSync, chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { migrate, migrationsDir } from './migrate.ts';
import { keyConnection } from './cipher.ts';
import { cacheStatements } from './statement-cache.ts';
import { defineSyncDefaults } from './sync-functions.ts';

export type Database = SQLite.Database;

export interface OpenDatabaseOptions {
  file: string;
  /** 32 bytes; only custody produces it (Custody.databaseKey()). */
  key: Uint8Array;
  /** Migrations directory; defaults to the one shipped beside migrate.ts. */
  migrations?: string | URL;
}

/** The page cache, in KiB (SQLite takes a negative size as KiB). */
const CACHE_KIB = -65_536;

export function openDatabase({ file, key, migrations }: OpenDatabaseOptions): Database {
  if (key.length !== 32) throw new RangeError('database key must be 32 bytes');
  const dir = migrationsDir(migrations);
  createPrivateFile(file);

  const db = new SQLite(file);
  try {
    keyConnection(db, key);
    verifyKey(db, file);

    const mode = db.pragma('journal_mode=WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`could not put ${file} in WAL mode (got ${String(mode)})`);
    db.pragma('foreign_keys=ON');
    db.pragma('busy_timeout=5000');
    // FULL: a commit is on disk before its request is answered, so a power cut cannot take back
    // acknowledged data (mail another node was told it holds, above all). NORMAL would be about
    // 8% faster on mail sends and lose only the last commits, and only to a power cut.
    db.pragma('synchronous=FULL');
    // 64 MiB of decrypted pages instead of SQLite's 16: every page read from the file is
    // decrypted and authenticated first, and a search walks a thousand rows and the index lists
    // that find them. At a million messages this halves a search's typical time (docs/benchmarks.md, Search).
    db.pragma(`cache_size=${CACHE_KIB}`);
    defineSyncDefaults(db);
    migrate(db, dir);
    cacheStatements(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Folds the WAL back into the main file so the database is one file at rest, then closes. */
export function closeDatabase(db: Database): void {
  if (!db.open) return;
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

// SQLite gives -wal and -shm the main file's mode, so creating the file 0600 covers all three.
function createPrivateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  if (process.platform !== 'win32') chmodSync(file, 0o600);
}

function verifyKey(db: Database, file: string): void {
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').pluck().get();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_NOTADB') {
      throw new Error(`database key does not open ${file}`, { cause: error });
    }
    throw error;
  }
}
