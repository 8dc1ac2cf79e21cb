/**
 * Rows written as another device wrote them: found, added, changed or removed by their key, in
 * whichever synced table they belong to (tables.ts names them, and the caller passes only those
 * names and the columns the schema has). The one place sync writes the node's own tables: each
 * table's module owns what its rows mean, and this only repeats, row for row, what that module
 * already wrote on the other device.
 */
import type { Database } from '../../store/database.ts';

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const where = (key: readonly string[]): string => key.map((column) => `${quote(column)} IS ?`).join(' AND ');

export function rowExists(db: Database, table: string, key: readonly string[], values: unknown[]): boolean {
  return db.prepare(`SELECT 1 FROM ${quote(table)} WHERE ${where(key)}`).get(...values) !== undefined;
}

export function insertRow(db: Database, table: string, row: Record<string, unknown>): void {
  const columns = Object.keys(row);
  db.prepare(`INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(...columns.map((c) => row[c]));
}

export function updateRow(db: Database, table: string, key: readonly string[], values: unknown[], row: Record<string, unknown>): void {
  const columns = Object.keys(row).filter((column) => !key.includes(column));
  if (columns.length === 0) return;
  db.prepare(`UPDATE ${quote(table)} SET ${columns.map((c) => `${quote(c)} = ?`).join(', ')} WHERE ${where(key)}`).run(
    ...columns.map((c) => row[c]),
    ...values,
  );
}

export function deleteRow(db: Database, table: string, key: readonly string[], values: unknown[]): void {
  db.prepare(`DELETE FROM ${quote(table)} WHERE ${where(key)}`).run(...values);
}
