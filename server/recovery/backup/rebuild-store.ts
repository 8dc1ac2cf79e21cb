/**
 * A decrypted database image written out as a NEW SQLCipher file, without a plaintext file on the
 * way: the image is opened in memory, the new file is attached to that connection under its key
 * (so every page SQLite writes to it is encrypted as it leaves), and the schema and rows are
 * copied across as VACUUM copies them. Temporary tables and sorts stay in memory; the new file has
 * no journal while it is filled (a failed rebuild deletes the file instead of rolling back).
 *
 * This build of SQLite has no sqlcipher_export, nor URI filenames for a keyed backup target, so the
 * copy is done here, in SQL.
 */
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';

const TARGET = 'rebuilt';

/** The first words SQLite stores a CREATE statement with (it normalises them), before the name. */
const CREATE_PREFIX = /^(CREATE (?:TABLE|INDEX|UNIQUE INDEX) (?:IF NOT EXISTS )?)/;

interface SchemaRow {
  type: string;
  name: string;
  sql: string | null;
  rootpage: number | null;
}

/**
 * Writes `image` (decrypted pages, rollback-journal header) to `file`, a new SQLCipher v4 database
 * keyed with the raw 32-byte `key`, as the node's own database is (store/database.ts).
 */
export function rebuildDatabase(image: Buffer, file: string, key: Uint8Array): void {
  if (key.length !== 32) throw new RangeError('database key must be 32 bytes');
  // Made here, 0600 in a 0700 folder as the node's own file is, and only if nothing is there yet.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'wx', 0o600));
  const source = new SQLite(image);
  try {
    // Writing the schema table directly (views, triggers, virtual tables) is what VACUUM does; this
    // connection is private to the rebuild and holds only the image.
    source.unsafeMode(true);
    source.pragma('temp_store=MEMORY');
    source.pragma('foreign_keys=OFF');
    // The cipher settings apply to the database attached next.
    source.pragma("cipher='sqlcipher'");
    source.pragma('legacy=4');
    source.prepare(`ATTACH DATABASE ? AS ${TARGET} KEY ?`).run(file, `x'${Buffer.from(key).toString('hex')}'`);
    source.pragma(`${TARGET}.journal_mode=OFF`);
    copyInto(source);
    source.prepare(`DETACH DATABASE ${TARGET}`).run();
  } catch (error) {
    removeFile(file);
    throw error;
  } finally {
    source.close();
  }
  try {
    checkRebuilt(file, key);
  } catch (error) {
    removeFile(file);
    throw error;
  }
}

function copyInto(db: SQLite.Database): void {
  const schema = db.prepare(`SELECT type, name, sql, rootpage FROM main.sqlite_schema ORDER BY rowid`).all() as SchemaRow[];
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const inTarget = (sql: string) => {
    if (!CREATE_PREFIX.test(sql)) throw new Error(`unexpected schema statement: ${sql.slice(0, 40)}`);
    return sql.replace(CREATE_PREFIX, `$1${TARGET}.`);
  };
  db.transaction(() => {
    for (const pragma of ['user_version', 'application_id']) {
      db.pragma(`${TARGET}.${pragma}=${Number(db.pragma(pragma, { simple: true }))}`);
    }
    // Tables with storage first (virtual tables' shadow tables among them), then their rows.
    const tables = schema.filter((row) => row.type === 'table' && row.name !== 'sqlite_sequence' && (row.rootpage ?? 0) > 0 && row.sql !== null);
    for (const table of tables) db.exec(inTarget(table.sql ?? ''));
    const filled = db.prepare(`SELECT name FROM ${TARGET}.sqlite_schema WHERE type = 'table' AND rootpage > 0`).pluck().all() as string[];
    for (const name of filled) db.exec(`INSERT INTO ${TARGET}.${quoted(name)} SELECT * FROM main.${quoted(name)}`);
    // Indexes built once the rows are in; those a constraint makes (no sql) came with their table.
    for (const index of schema.filter((row) => row.type === 'index' && row.sql !== null)) db.exec(inTarget(index.sql ?? ''));
    // Views, triggers and virtual tables have no storage of their own: their schema rows are copied
    // as they are, so no trigger fires on the rows copied above.
    db.pragma(`${TARGET}.writable_schema=ON`);
    db.exec(`INSERT INTO ${TARGET}.sqlite_schema SELECT * FROM main.sqlite_schema WHERE type IN ('view', 'trigger') OR (type = 'table' AND rootpage = 0)`);
    db.pragma(`${TARGET}.writable_schema=OFF`);
  })();
}

/** The new file opens under its key and SQLite finds nothing wrong in it. */
function checkRebuilt(file: string, key: Uint8Array): void {
  const db = new SQLite(file, { fileMustExist: true });
  try {
    db.pragma("cipher='sqlcipher'");
    db.pragma('legacy=4');
    db.pragma(`key="x'${Buffer.from(key).toString('hex')}'"`);
    const problems = db.pragma('quick_check', { simple: true });
    if (problems !== 'ok') throw new Error(`the rebuilt database does not pass its check: ${String(problems)}`);
  } finally {
    db.close();
  }
}

function removeFile(file: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}
