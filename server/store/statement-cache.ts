/**
 * Prepared statements are reused: preparing costs about ten times what running a small query
 * does, and services prepare at every call. The cache sits under `db.prepare`, so call sites stay
 * plain SQL; each statement's result modes are reset on the way out so one caller's `.pluck()`
 * never leaks into another's. A cached statement keeps its plan only if SQLite does not prepare
 * it again on its own: bound LIMITs are written `LIMIT +?` (lint enforces it in server/).
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';

const LIMIT = 1000;

export function cacheStatements(db: SQLite.Database): void {
  const prepare = db.prepare.bind(db) as (sql: string) => SQLite.Statement;
  const cache = new Map<string, SQLite.Statement>();
  const cached = (sql: string): SQLite.Statement => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      // Oldest out first: dynamic SQL (IN lists of varying length) cannot grow the cache forever.
      if (cache.size >= LIMIT) cache.delete(cache.keys().next().value as string);
      cache.set(sql, statement);
    } else if (statement.reader) {
      statement.pluck(false).expand(false).raw(false);
    }
    return statement;
  };
  db.prepare = cached as typeof db.prepare;
}
