import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Database } from './database.ts';

const SECRET_TEXT = 'plaintext-canary-7f3a9c-do-not-leak';
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

let dir: string;
let file: string;
let key: Buffer;
let migrations: string;
const open: Database[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
  file = join(dir, 'node.db');
  key = randomBytes(32);
  migrations = join(dir, 'migrations');
  mkdirSync(migrations);
  writeFileSync(join(migrations, '0001-notes.sql'), 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);');
});

afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

function openTracked(k: Uint8Array = key): Database {
  const db = openDatabase({ file, key: k, migrations });
  open.push(db);
  return db;
}

function rawOpenError(setup: (db: SQLite.Database) => void): unknown {
  const db = new SQLite(file);
  try {
    setup(db);
    db.prepare('SELECT * FROM sqlite_master').all();
    return null;
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
}

describe('openDatabase', () => {
  it('writes an encrypted file: no SQLite header, no plaintext in the main file or the WAL', () => {
    const db = openTracked();
    db.prepare('INSERT INTO notes (body) VALUES (?)').run(SECRET_TEXT);

    const wal = readFileSync(`${file}-wal`);
    expect(wal.length).toBeGreaterThan(0);
    expect(wal.includes(SECRET_TEXT)).toBe(false);

    db.pragma('wal_checkpoint(PASSIVE)');
    const main = readFileSync(file);
    expect(main.subarray(0, 16).equals(SQLITE_HEADER)).toBe(false);
    expect(main.includes(SECRET_TEXT)).toBe(false);
    expect(readFileSync(`${file}-wal`).includes(SECRET_TEXT)).toBe(false);

    closeDatabase(db);
    const atRest = readFileSync(file);
    expect(atRest.includes(SECRET_TEXT)).toBe(false);
    expect(atRest.includes(Buffer.from(SECRET_TEXT, 'utf16le'))).toBe(false);
  });

  it('creates the database and its WAL with mode 0600', () => {
    const db = openTracked();
    db.prepare('INSERT INTO notes (body) VALUES (?)').run('x');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
  });

  it('cannot be read without the key or with the wrong key (plain driver: SQLITE_NOTADB)', () => {
    closeDatabase(openTracked());
    expect(rawOpenError(() => {})).toMatchObject({ code: 'SQLITE_NOTADB' });
    expect(
      rawOpenError((db) => {
        db.pragma("cipher='sqlcipher'");
        db.pragma('legacy=4');
        db.pragma(`key="x'${randomBytes(32).toString('hex')}'"`);
      }),
    ).toMatchObject({ code: 'SQLITE_NOTADB' });
    // The same key under the driver's default cipher (not SQLCipher v4) does not open it either.
    expect(rawOpenError((db) => db.pragma(`key="x'${key.toString('hex')}'"`))).toMatchObject({
      code: 'SQLITE_NOTADB',
    });
  });

  it('is a SQLCipher v4 file that the plain driver opens with cipher, legacy=4 and the raw key', () => {
    const db = openTracked();
    db.prepare('INSERT INTO notes (body) VALUES (?)').run(SECRET_TEXT);
    closeDatabase(db);
    const raw = new SQLite(file);
    raw.pragma("cipher='sqlcipher'");
    raw.pragma('legacy=4');
    raw.pragma(`key="x'${key.toString('hex')}'"`);
    expect(raw.prepare('SELECT body FROM notes').pluck().all()).toEqual([SECRET_TEXT]);
    raw.close();
  });

  it('turns a wrong key into a clear error naming the file', () => {
    closeDatabase(openTracked());
    expect(() => openDatabase({ file, key: randomBytes(32), migrations })).toThrow(`database key does not open ${file}`);
  });

  it('reads data back with the right key after reopen, in WAL mode with foreign keys on, synchronous FULL and a 64 MiB page cache', () => {
    const db = openTracked();
    db.prepare('INSERT INTO notes (body) VALUES (?)').run(SECRET_TEXT);
    closeDatabase(db);
    expect(existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0).toBe(0);

    const again = openTracked();
    expect(again.prepare('SELECT body FROM notes').pluck().all()).toEqual([SECRET_TEXT]);
    expect(again.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(again.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(again.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(again.pragma('synchronous', { simple: true })).toBe(2);
    expect(again.pragma('cache_size', { simple: true })).toBe(-65_536);
  });

  it('rejects a key that is not 32 bytes', () => {
    expect(() => openDatabase({ file, key: randomBytes(16), migrations })).toThrow(RangeError);
  });

  it('applies the shipped migrations by default, including the custody table', () => {
    const db = openDatabase({ file, key });
    open.push(db);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).toContain('custody_keys');
    expect(db.prepare('SELECT version FROM schema_migrations').pluck().all()).toContain(1);
  });
});
