/**
 * The triggers that write each of this device's changes to a synced table into `device_ops`, in
 * the change's own transaction: a store that writes a row cannot forget to tell the other
 * devices, because it does not have to. They exist only while the node has another live device
 * (a node alone pays nothing for sync), and are made again from the schema as it is whenever
 * sync starts, so a migration that adds a column is followed without a word here.
 *
 * Each trigger runs only when `svc_sync_capture()` says the change is this device's own: changes
 * that arrive from another device are applied with capture off (apply.ts), so nothing echoes.
 */
import type { Database } from '../../store/database.ts';
import { CAPTURE_FUNCTION, DEVICE_FUNCTION, SEQ_FUNCTION, TICK_FUNCTION } from '../../store/sync-functions.ts';
import type { SyncedTable } from './tables.ts';

const PREFIX = 'svc_sync_';

/** The columns of `table` that travel, with whether each is a BLOB (sent as hex). */
export function travellingColumns(db: Database, spec: SyncedTable): { name: string; blob: boolean }[] {
  const columns = db.prepare('SELECT name, type FROM pragma_table_info(?) ORDER BY cid').all(spec.table) as { name: string; type: string }[];
  if (columns.length === 0) throw new Error(`synced table ${spec.table} does not exist`);
  return columns
    .filter((column) => !(spec.local ?? []).includes(column.name))
    .map((column) => ({ name: column.name, blob: column.type.toUpperCase() === 'BLOB' }));
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

function keyExpr(spec: SyncedTable, row: 'NEW' | 'OLD'): string {
  return `json_array(${spec.key.map((column) => `${row}.${quote(column)}`).join(', ')})`;
}

function rowExpr(spec: SyncedTable, columns: { name: string; blob: boolean }[]): string {
  const pairs = columns.map(({ name, blob }) => {
    const filled = spec.fill?.[name];
    const value =
      filled !== undefined ? filled : blob ? `CASE WHEN NEW.${quote(name)} IS NULL THEN NULL ELSE hex(NEW.${quote(name)}) END` : `NEW.${quote(name)}`;
    return `${literal(name)}, ${value}`;
  });
  return `json_object(${pairs.join(', ')})`;
}

function triggerSql(db: Database, spec: SyncedTable): string[] {
  const columns = travellingColumns(db, spec);
  const name = (what: string): string => quote(`${PREFIX}${spec.table}_${what}`);
  const when = (row: 'NEW' | 'OLD'): string => {
    const stays = spec.stays === undefined ? '' : ` AND NOT (${spec.stays.replace(/\brow\./g, `${row}.`)})`;
    return `WHEN ${CAPTURE_FUNCTION}()${stays}`;
  };
  const record = (op: 'upsert' | 'delete', row: 'NEW' | 'OLD'): string => `
    INSERT INTO device_ops (origin, seq, lamport, tbl, op, key, row, at)
    VALUES (${DEVICE_FUNCTION}(), ${SEQ_FUNCTION}(), ${TICK_FUNCTION}(), ${literal(spec.table)}, '${op}', ${keyExpr(spec, row)}, ${op === 'upsert' ? rowExpr(spec, columns) : 'NULL'},
            strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
    INSERT INTO sync_clock (tbl, key, lamport, origin)
    SELECT tbl, key, lamport, origin FROM device_ops WHERE origin = ${DEVICE_FUNCTION}() ORDER BY seq DESC LIMIT 1
    ON CONFLICT (tbl, key) DO UPDATE SET lamport = excluded.lamport, origin = excluded.origin;`;
  const table = quote(spec.table);
  return [
    `CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${table} ${when('NEW')} BEGIN ${record('upsert', 'NEW')} END`,
    `CREATE TRIGGER ${name('update')} AFTER UPDATE ON ${table} ${when('NEW')} BEGIN ${record('upsert', 'NEW')} END`,
    `CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${table} ${when('OLD')} BEGIN ${record('delete', 'OLD')} END`,
  ];
}

/** The capture triggers of every synced table, made anew from the schema as it is (inside one transaction). */
export function installCapture(db: Database, tables: readonly SyncedTable[]): void {
  db.transaction(() => {
    removeCaptureTriggers(db);
    for (const spec of tables) for (const sql of triggerSql(db, spec)) db.exec(sql);
  })();
}

/** No capture: the node has no other live device. */
export function removeCapture(db: Database): void {
  db.transaction(() => removeCaptureTriggers(db))();
}

function removeCaptureTriggers(db: Database): void {
  const names = db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '${PREFIX}%'`).pluck().all() as string[];
  for (const name of names) db.exec(`DROP TRIGGER ${quote(name)}`);
}

/** Whether the capture triggers are in place. */
export function captureInstalled(db: Database): boolean {
  return db.prepare(`SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '${PREFIX}%'`).pluck().get() !== 0;
}
