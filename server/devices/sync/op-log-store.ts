/**
 * The `device_ops` and `sync_clock` tables (migration 0051-device-sync.sql): every synced change
 * this device made or applied, and each synced row's last change. The only module that reads or
 * writes them, apart from the capture triggers (capture-store.ts), which append to both.
 */
import type { Database } from '../../store/database.ts';

export interface DeviceOp {
  origin: string;
  seq: number;
  lamport: number;
  tbl: string;
  op: 'upsert' | 'delete';
  /** JSON array of the row's key columns. */
  key: string;
  /** JSON object of the row after the change; null for a delete. */
  row: string | null;
  at: string;
}

/** How far this device holds each device's changes: the highest number of each. */
export type Vector = Record<string, number>;

export function vectorOf(db: Database): Vector {
  const rows = db.prepare('SELECT origin, max(seq) AS seq FROM device_ops GROUP BY origin').all() as { origin: string; seq: number }[];
  return Object.fromEntries(rows.map((row) => [row.origin, row.seq]));
}

export function maxLamport(db: Database): number {
  return (db.prepare('SELECT max(lamport) FROM device_ops').pluck().get() as number | null) ?? 0;
}

export function maxSeq(db: Database, origin: string): number {
  return (db.prepare('SELECT max(seq) FROM device_ops WHERE origin = ?').pluck().get(origin) as number | null) ?? 0;
}

/**
 * The changes this device holds that `have` lacks, at most `limit`, oldest first by Lamport time
 * (so a row's parent, made before it, comes first), and whether more are waiting.
 */
export function opsAfter(db: Database, have: Vector, limit: number): { ops: DeviceOp[]; more: boolean } {
  const origins = db.prepare('SELECT DISTINCT origin FROM device_ops').pluck().all() as string[];
  const read = db.prepare('SELECT * FROM device_ops WHERE origin = ? AND seq > ? ORDER BY seq LIMIT +?');
  const found: DeviceOp[] = [];
  for (const origin of origins) found.push(...(read.all(origin, have[origin] ?? 0, limit + 1) as DeviceOp[]));
  found.sort((a, b) => a.lamport - b.lamport || a.origin.localeCompare(b.origin) || a.seq - b.seq);
  // Cut at `limit`, but never leave a device's changes with a gap: what is sent of each device is a prefix of what it has.
  const sent = found.slice(0, limit);
  return { ops: sent, more: found.length > limit };
}

/** Keeps another device's change (once: a second arrival is the same change). */
export function keepOp(db: Database, op: DeviceOp): boolean {
  return (
    db
      .prepare(
        'INSERT INTO device_ops (origin, seq, lamport, tbl, op, key, row, at) VALUES (@origin, @seq, @lamport, @tbl, @op, @key, @row, @at) ON CONFLICT DO NOTHING',
      )
      .run(op).changes === 1
  );
}

export interface Clock {
  lamport: number;
  origin: string;
}

export function clockOf(db: Database, tbl: string, key: string): Clock | undefined {
  return db.prepare('SELECT lamport, origin FROM sync_clock WHERE tbl = ? AND key = ?').get(tbl, key) as Clock | undefined;
}

export function setClock(db: Database, tbl: string, key: string, clock: Clock): void {
  db.prepare(
    'INSERT INTO sync_clock (tbl, key, lamport, origin) VALUES (?, ?, ?, ?) ON CONFLICT (tbl, key) DO UPDATE SET lamport = excluded.lamport, origin = excluded.origin',
  ).run(tbl, key, clock.lamport, clock.origin);
}

const PRUNED = 'pruned';

/**
 * Forgets changes older than `before`, keeping each device's newest (so its number stays known):
 * a device away longer is told it must join again (`prunedPast`). Records how far each device's
 * changes are gone. Returns how many were forgotten.
 */
export function pruneOps(db: Database, before: string): number {
  const gone = db
    .prepare(
      `SELECT origin, max(seq) AS seq FROM device_ops o WHERE at < ? AND seq < (SELECT max(seq) FROM device_ops m WHERE m.origin = o.origin) GROUP BY origin`,
    )
    .all(before) as { origin: string; seq: number }[];
  let changes = 0;
  for (const { origin, seq } of gone) {
    changes += db.prepare('DELETE FROM device_ops WHERE origin = ? AND seq <= ?').run(origin, seq).changes;
    setClock(db, PRUNED, JSON.stringify([origin]), { lamport: seq, origin });
  }
  return changes;
}

/** The first device whose changes `have` lacks and this device no longer holds (forgotten by pruneOps); null when none. */
export function prunedPast(db: Database, have: Vector): string | null {
  const rows = db.prepare('SELECT origin, lamport AS seq FROM sync_clock WHERE tbl = ?').all(PRUNED) as { origin: string; seq: number }[];
  return rows.find((row) => (have[row.origin] ?? 0) < row.seq)?.origin ?? null;
}
