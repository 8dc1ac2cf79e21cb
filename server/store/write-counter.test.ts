/**
 * The write counter: it moves with every row written to a watched table, committed or rolled
 * back, by any statement on the connection, and with nothing else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeCounter } from './write-counter.ts';

let dir: string;
let db: SQLite.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-write-counter-'));
  db = new SQLite(join(dir, 'plain.db'));
  db.exec('CREATE TABLE watched (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE other (id INTEGER PRIMARY KEY, v TEXT)');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('writeCounter', () => {
  it('moves with every row inserted, updated and deleted in the watched tables, and nothing else on the connection', () => {
    const stamp = writeCounter(db, 'test', ['watched']);
    const seen = new Set([stamp()]);
    db.prepare("INSERT INTO watched (v) VALUES ('a'), ('b')").run();
    seen.add(stamp());
    db.prepare("UPDATE watched SET v = 'c'").run();
    seen.add(stamp());
    db.prepare('DELETE FROM watched WHERE id = 1').run();
    const last = stamp();
    seen.add(last);
    expect(seen.size).toBe(4);
    db.prepare("INSERT INTO other (v) VALUES ('x')").run();
    db.prepare('SELECT * FROM watched').all();
    expect(stamp()).toBe(last);
  });

  it('moves when another connection commits to the file', () => {
    const stamp = writeCounter(db, 'test', ['watched']);
    const before = stamp();
    const other = new SQLite(join(dir, 'plain.db'));
    other.prepare("INSERT INTO other (v) VALUES ('from elsewhere')").run();
    other.close();
    expect(stamp()).not.toBe(before);
  });

  it('moves for a write that is rolled back: unchanged always means unchanged', () => {
    const stamp = writeCounter(db, 'test', ['watched']);
    const before = stamp();
    expect(() =>
      db.transaction(() => {
        db.prepare("INSERT INTO watched (v) VALUES ('a')").run();
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(db.prepare('SELECT count(*) FROM watched').pluck().get()).toBe(0);
    expect(stamp()).not.toBe(before);
  });

  it('is one counter per name and connection, and refuses a name that is not a table name', () => {
    expect(writeCounter(db, 'test', ['watched'])).toBe(writeCounter(db, 'test', ['watched']));
    expect(() => writeCounter(db, 'bad', ['watched; DROP TABLE other'])).toThrow(RangeError);
  });
});
