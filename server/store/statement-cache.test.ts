import SQLite from 'better-sqlite3-multiple-ciphers';
import { describe, expect, it } from 'vitest';
import { cacheStatements } from './statement-cache.ts';

function db(): SQLite.Database {
  const d = new SQLite(':memory:');
  d.exec(`CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y');`);
  cacheStatements(d);
  return d;
}

describe('statement cache', () => {
  it('hands out the same statement for the same SQL', () => {
    const d = db();
    expect(d.prepare('SELECT a FROM t')).toBe(d.prepare('SELECT a FROM t'));
    expect(d.prepare('SELECT a FROM t')).not.toBe(d.prepare('SELECT b FROM t'));
  });

  it("resets one caller's result mode before the next caller gets the statement", () => {
    const d = db();
    expect(d.prepare('SELECT a FROM t ORDER BY a').pluck().get()).toBe(1);
    expect(d.prepare('SELECT a FROM t ORDER BY a').get()).toEqual({ a: 1 });
    expect(d.prepare('SELECT a FROM t ORDER BY a').raw().get()).toEqual([1]);
    expect(d.prepare('SELECT a FROM t ORDER BY a').all()).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('limits rows with a bound `LIMIT +?` as with a literal, -1 meaning no limit', () => {
    const d = db();
    const limited = (n: number) => d.prepare('SELECT a FROM t ORDER BY a LIMIT +?').pluck().all(n);
    expect(limited(1)).toEqual([1]);
    expect(limited(-1)).toEqual([1, 2]);
    expect(limited(0)).toEqual([]);
  });

  it('caches writes too', () => {
    const d = db();
    const insert = 'INSERT INTO t VALUES (?, ?)';
    d.prepare(insert).run(3, 'z');
    d.prepare(insert).run(4, 'w');
    expect(d.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(4);
  });
});
