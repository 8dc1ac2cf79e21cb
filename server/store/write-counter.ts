/**
 * How many rows this connection has written to chosen tables, counted by SQLite itself: temporary
 * triggers on the connection call a function that counts every row inserted, updated or deleted.
 *
 * A caller that read those tables, let the event loop run (a seal in the worker), and wants to know
 * whether what it read still holds compares two stamps: equal means no row of them changed since,
 * whatever code on this connection wrote it. The stamp also carries SQLite's `data_version`, which
 * moves when another connection commits (a tool writing the file beside the node), so a write from
 * elsewhere counts as a change too. A write later rolled back moves the stamp as well: "unchanged"
 * is never wrong, only now and then too careful.
 *
 * The triggers are the connection's own (TEMP) and are made at the first ask, after the
 * migrations: nothing is added to the database file.
 */
import type { Database } from './database.ts';

const counters = new WeakMap<Database, Map<string, () => string>>();

/** Table names as the node's migrations write them: the only thing interpolated into the triggers. */
const NAME = /^[a-z][a-z0-9_]*$/;

/** A stamp of the writes to `tables` on `db` (since it was first asked for under `name`) and of other connections' commits. */
export function writeCounter(db: Database, name: string, tables: readonly string[]): () => string {
  let named = counters.get(db);
  if (named === undefined) counters.set(db, (named = new Map()));
  const existing = named.get(name);
  if (existing !== undefined) return existing;
  for (const part of [name, ...tables]) if (!NAME.test(part)) throw new RangeError(`not a table name: ${part}`);
  let count = 0;
  const fn = `svc_rows_written_${name}`;
  db.function(fn, { deterministic: false, varargs: false }, () => {
    count++;
    return null;
  });
  for (const table of tables) {
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS ${fn}_${table}_${op.toLowerCase()} AFTER ${op} ON main.${table} BEGIN SELECT ${fn}(); END`);
    }
  }
  const read = (): string => `${count}:${db.prepare('PRAGMA data_version').pluck().get() as number}`;
  named.set(name, read);
  return read;
}
