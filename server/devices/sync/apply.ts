/**
 * Applying another device's changes, in Lamport order: each change once (device_ops remembers it,
 * so it can be passed on too), and to its row only when it is the row's later change (its
 * Lamport time, then its device id, above the row's clock): every device ends with the same last
 * writer whatever order the changes reached it in. A row of an append-only table is only added.
 *
 * Each change is applied in a savepoint of its own: one the schema refuses (a row whose parent
 * this device does not hold, a name taken here meanwhile) is counted and skipped, never the
 * batch's undoing.
 */
import type { Database } from '../../store/database.ts';
import { clockOf, keepOp, setClock, type Clock, type DeviceOp } from './op-log-store.ts';
import { deleteRow, insertRow, rowExists, updateRow } from './row-store.ts';
import type { SyncedTable, SyncRow } from './tables.ts';
import { travellingColumns } from './capture-store.ts';

export interface Applied {
  /** Changes new to this device. */
  received: number;
  /** Of those, the ones that changed a row. */
  applied: number;
  /** Refused by the schema, and skipped. */
  skipped: number;
  /** Topics to publish once the batch is committed. */
  nudges: Set<string>;
}

const later = (a: Clock, b: Clock | undefined): boolean => b === undefined || a.lamport > b.lamport || (a.lamport === b.lamport && a.origin > b.origin);

export class ChangeApplier {
  readonly #db: Database;
  readonly #tables: Map<string, SyncedTable>;
  readonly #columns = new Map<string, { known: Set<string>; blobs: Set<string> }>();

  constructor(db: Database, tables: readonly SyncedTable[]) {
    this.#db = db;
    this.#tables = new Map(tables.map((spec) => [spec.table, spec]));
  }

  /** Applies `ops` inside the caller's transaction (with capture off). */
  apply(ops: readonly DeviceOp[]): Applied {
    const result: Applied = { received: 0, applied: 0, skipped: 0, nudges: new Set() };
    for (const op of [...ops].sort((a, b) => a.lamport - b.lamport || a.origin.localeCompare(b.origin) || a.seq - b.seq)) {
      if (!keepOp(this.#db, op)) continue;
      result.received += 1;
      const spec = this.#tables.get(op.tbl);
      // A table this version does not sync (a newer device's): kept to pass on, not applied.
      if (spec === undefined) continue;
      // A transaction inside the batch's is a savepoint (better-sqlite3): a refused change undoes only itself.
      try {
        if (this.#db.transaction(() => this.#applyOne(spec, op, result))()) result.applied += 1;
      } catch (error) {
        if (!isConstraint(error)) throw error;
        result.skipped += 1;
      }
    }
    return result;
  }

  #applyOne(spec: SyncedTable, op: DeviceOp, result: Applied): boolean {
    const clock = { lamport: op.lamport, origin: op.origin };
    const values = JSON.parse(op.key) as unknown[];
    if (!Array.isArray(values) || values.length !== spec.key.length) return false;
    const exists = rowExists(this.#db, spec.table, spec.key, values);
    const row = op.op === 'upsert' ? this.#decode(spec, JSON.parse(op.row ?? '{}') as SyncRow) : null;
    // Before the clocks: a row of another line must not land on this chain, however late it is.
    if (row !== null && spec.chain !== undefined && this.#breaksChain(spec, spec.chain, row, exists, values, clock)) return false;
    if (spec.headOf !== undefined && clockOf(this.#db, `apart:${spec.headOf}`, JSON.stringify(values)) !== undefined) return false;
    if (!later(clock, clockOf(this.#db, op.tbl, op.key))) return false;
    if (row === null) {
      if (exists) deleteRow(this.#db, spec.table, spec.key, values);
    } else {
      if (exists && spec.appendOnly === true) {
        setClock(this.#db, op.tbl, op.key, clock);
        return false;
      }
      if (exists) updateRow(this.#db, spec.table, spec.key, values, row);
      else insertRow(this.#db, spec.table, row);
      for (const topic of spec.nudges?.(row) ?? []) result.nudges.add(topic);
    }
    setClock(this.#db, op.tbl, op.key, clock);
    return true;
  }

  /** Whether `row` is (or follows) another line of its group than this device's: kept unapplied, the group marked apart. */
  #breaksChain(spec: SyncedTable, chain: { group: string; id: string }, row: SyncRow, exists: boolean, values: unknown[], clock: Clock): boolean {
    const marker = `apart:${spec.table}`;
    const group = JSON.stringify([row[chain.group]]);
    if (clockOf(this.#db, marker, group) !== undefined) return true;
    if (!exists || rowExists(this.#db, spec.table, [...spec.key, chain.id], [...values, row[chain.id]])) return false;
    setClock(this.#db, marker, group, clock);
    return true;
  }

  /** The row's values as SQLite takes them: BLOB columns from hex, and only columns this schema has. */
  #decode(spec: SyncedTable, row: SyncRow): SyncRow {
    let columns = this.#columns.get(spec.table);
    if (columns === undefined) {
      const travelling = travellingColumns(this.#db, spec);
      columns = { known: new Set(travelling.map((c) => c.name)), blobs: new Set(travelling.filter((c) => c.blob).map((c) => c.name)) };
      this.#columns.set(spec.table, columns);
    }
    const { known, blobs } = columns;
    const decoded: SyncRow = {};
    for (const [column, value] of Object.entries(row)) {
      // A column a newer device has and this one does not: left out (the row still applies).
      if (!known.has(column)) continue;
      decoded[column] = blobs.has(column) && typeof value === 'string' ? Buffer.from(value, 'hex') : value;
    }
    return decoded;
  }
}

function isConstraint(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}
