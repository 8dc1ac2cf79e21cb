import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from './database.ts';
import { listMigrations, migrate, migrationsDir } from './migrate.ts';

let dir: string;
let migrations: string;
let db: SQLite.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-migrate-'));
  migrations = join(dir, 'migrations');
  mkdirSync(migrations);
  db = new SQLite(join(dir, 'plain.db'));
});

afterEach(() => {
  if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

function addMigration(file: string, sql: string): void {
  writeFileSync(join(migrations, file), sql);
}

const versions = () => db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
const tables = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'schema_migrations' ORDER BY name").pluck().all();

describe('migrate', () => {
  it('applies files in numeric order, once, and records them', () => {
    // Written out of order on purpose: 0002 references 0001's table, and 0010 must come last.
    addMigration('0010-c.sql', 'ALTER TABLE b ADD COLUMN late TEXT;');
    addMigration('0002-b.sql', 'CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id));');
    addMigration('0001-a.sql', 'CREATE TABLE a (id INTEGER PRIMARY KEY);');

    expect(migrate(db, migrations)).toEqual({ applied: [1, 2, 10], version: 10 });
    expect(versions()).toEqual([
      { version: 1, name: 'a' },
      { version: 2, name: 'b' },
      { version: 10, name: 'c' },
    ]);
    const appliedAt = db.prepare('SELECT applied_at FROM schema_migrations').pluck().all() as string[];
    for (const at of appliedAt) expect(Number.isNaN(Date.parse(at))).toBe(false);

    expect(migrate(db, migrations)).toEqual({ applied: [], version: 10 });
    expect(versions()).toHaveLength(3);
  });

  it('applies only the new files on a later run', () => {
    addMigration('0001-a.sql', 'CREATE TABLE a (id INTEGER PRIMARY KEY);');
    migrate(db, migrations);
    addMigration('0002-b.sql', 'CREATE TABLE b (id INTEGER PRIMARY KEY);');
    expect(migrate(db, migrations)).toEqual({ applied: [2], version: 2 });
    expect(tables()).toEqual(['a', 'b']);
  });

  it('rolls a failing migration back entirely and leaves the version unchanged', () => {
    addMigration('0001-a.sql', 'CREATE TABLE a (id INTEGER PRIMARY KEY);');
    migrate(db, migrations);
    addMigration('0002-broken.sql', 'CREATE TABLE half (id INTEGER); INSERT INTO a (id) VALUES (7); INSERT INTO missing VALUES (1);');
    expect(() => migrate(db, migrations)).toThrow(/migration 2-broken failed and was rolled back: .*missing/);
    expect(tables()).toEqual(['a']);
    expect(db.prepare('SELECT count(*) FROM a').pluck().get()).toBe(0);
    expect(versions()).toEqual([{ version: 1, name: 'a' }]);
    expect(db.inTransaction).toBe(false);
  });

  it('refuses a database whose schema is newer than the newest file', () => {
    addMigration('0001-a.sql', 'CREATE TABLE a (id INTEGER PRIMARY KEY);');
    addMigration('0002-b.sql', 'CREATE TABLE b (id INTEGER PRIMARY KEY);');
    migrate(db, migrations);
    rmSync(join(migrations, '0002-b.sql'));
    expect(() => migrate(db, migrations)).toThrow('database schema v2 is newer than this svc-node (v1)');
  });

  it('refuses, through openDatabase, an encrypted database with a newer schema', () => {
    const file = join(dir, 'enc.db');
    const key = randomBytes(32);
    addMigration('0001-a.sql', 'CREATE TABLE a (id INTEGER PRIMARY KEY);');
    addMigration('0002-b.sql', 'CREATE TABLE b (id INTEGER PRIMARY KEY);');
    closeDatabase(openDatabase({ file, key, migrations }));
    rmSync(join(migrations, '0002-b.sql'));
    expect(() => openDatabase({ file, key, migrations })).toThrow('database schema v2 is newer than this svc-node (v1)');
  });

  it('rejects badly named and duplicate migration files', () => {
    addMigration('1-short.sql', 'SELECT 1;');
    expect(() => listMigrations(migrations)).toThrow(/1-short\.sql is not NNNN-name\.sql/);
    rmSync(join(migrations, '1-short.sql'));
    addMigration('0003-one.sql', 'SELECT 1;');
    addMigration('0003-two.sql', 'SELECT 1;');
    expect(() => listMigrations(migrations)).toThrow('two migration files share version 3');
  });

  it('ignores files that are not .sql', () => {
    addMigration('0001-a.sql', 'CREATE TABLE a (id INTEGER);');
    writeFileSync(join(migrations, 'README.md'), '# notes');
    expect(listMigrations(migrations).map((m) => m.name)).toEqual(['a']);
  });
});

describe('migrationsDir', () => {
  it('defaults to the shipped directory, which holds 0001-custody.sql', () => {
    const names = listMigrations(migrationsDir()).map((m) => `${m.version}-${m.name}`);
    expect(names[0]).toBe('1-custody');
  });

  it('accepts a path or a file URL override', () => {
    expect(migrationsDir(migrations)).toBe(migrations);
    expect(migrationsDir(new URL(`file://${migrations}/`))).toBe(`${migrations}/`);
  });

  it('throws a clear error when the directory is missing', () => {
    expect(() => migrationsDir(join(dir, 'nowhere'))).toThrow(/migrations directory not found: .*nowhere/);
  });
});
