import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { schemaTables } from '../../recovery/kit/state-store.ts';
import { closeDatabase, openDatabase, type Database } from '../../store/database.ts';
import { DERIVED_PREFIX, SYNCED_TABLES, UNSYNCED_TABLES } from './tables.ts';

let db: Database;

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sync-tables-'));
  db = openDatabase({ file: join(dir, 'node.db'), key: randomBytes(32) });
  return () => {
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  };
});

const uniqueKeys = (table: string): string[][] => {
  const indexes = db.prepare('SELECT name, origin FROM pragma_index_list(?) WHERE "unique" = 1').all(table) as { name: string }[];
  const keys = indexes.map((index) => db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(index.name) as string[]);
  const pk = db.prepare('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').pluck().all(table) as string[];
  return pk.length > 0 ? [...keys, pk] : keys;
};

describe('the tables linked devices sync', () => {
  it('place every table of the schema, so a migration that adds one must say whether devices sync it', () => {
    const placed = new Set([...SYNCED_TABLES.map((spec) => spec.table), ...Object.keys(UNSYNCED_TABLES)]);
    expect(schemaTables(db).filter((table) => !table.startsWith(DERIVED_PREFIX) && !placed.has(table))).toEqual([]);
    expect([...placed].filter((table) => !schemaTables(db).includes(table))).toEqual([]);
  });

  it('name each row by columns the schema holds unique, never by a row id each device numbers itself', () => {
    for (const spec of SYNCED_TABLES) {
      const keys = uniqueKeys(spec.table).map((key) => [...key].sort().join(','));
      const key = [...spec.key].sort().join(',');
      // chat_participants is unique by (session, identity) or (session, remote address): its key is all three, one of them null.
      const covered = keys.includes(key) || (spec.table === 'chat_participants' && keys.length >= 2);
      expect(covered, `${spec.table} by ${key}`).toBe(true);
      for (const column of spec.local ?? []) expect(spec.key, spec.table).not.toContain(column);
    }
  });

  it('leave out only row ids and each device’s own view, and reference only synced rows by their keys', () => {
    const synced = new Set(SYNCED_TABLES.map((spec) => spec.table));
    for (const spec of SYNCED_TABLES) {
      const references = db.prepare('SELECT "table", "to" FROM pragma_foreign_key_list(?)').all(spec.table) as { table: string; to: string | null }[];
      for (const reference of references) {
        expect(synced.has(reference.table), `${spec.table} -> ${reference.table}`).toBe(true);
        const target = SYNCED_TABLES.find((other) => other.table === reference.table)!;
        expect(target.local ?? [], `${spec.table} -> ${reference.table}.${reference.to}`).not.toContain(reference.to);
      }
    }
  });
});
