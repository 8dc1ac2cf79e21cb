import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Database } from '../../store/database.ts';
import { KIT_TABLE_NAMES, schemaTables, TABLE_CLASSES } from './state-store.ts';

let db: Database;

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-kit-tables-'));
  db = openDatabase({ file: join(dir, 'node.db'), key: randomBytes(32) });
  return () => {
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  };
});

describe("the recovery kit's tables", () => {
  it('classify every table of the schema, so a migration that adds one must say whether a kit carries it', () => {
    const tables = schemaTables(db);
    expect(tables.length).toBeGreaterThan(50);
    expect(tables.filter((table) => !(table in TABLE_CLASSES))).toEqual([]);
    expect(Object.keys(TABLE_CLASSES).filter((table) => !tables.includes(table))).toEqual([]);
  });

  it('are in foreign-key order and reference only one another, so a kit restores without any history', () => {
    KIT_TABLE_NAMES.forEach((table, index) => {
      const references = (db.prepare('SELECT "table" FROM pragma_foreign_key_list(?)').all(table) as { table: string }[]).map((row) => row.table);
      for (const referenced of references) {
        expect(TABLE_CLASSES[referenced], `${table} -> ${referenced}`).toBe('kit');
        expect(KIT_TABLE_NAMES.indexOf(referenced), `${table} -> ${referenced}`).toBeLessThanOrEqual(index);
      }
    });
  });
});
