/**
 * The database backups' two rows of `node_settings`: `backup_last` (when the last backup was
 * written, and where) and `backup_schedule` (where to, how often). The only module that reads or
 * writes those keys.
 */
import type { BackupSchedule } from '../../../../contract/node/backups.ts';
import type { Db } from '../../../context.ts';

const LAST = 'backup_last';
const SCHEDULE = 'backup_schedule';

export interface LastBackup {
  at: string;
  to: string;
}

function read<T>(db: Db, key: string): T | null {
  const value = db.prepare(`SELECT value FROM node_settings WHERE key = ?`).pluck().get(key) as string | undefined;
  return value === undefined ? null : (JSON.parse(value) as T);
}

function write(db: Db, key: string, value: unknown): void {
  db.prepare(`INSERT INTO node_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(key, JSON.stringify(value));
}

export function readLastBackup(db: Db): LastBackup | null {
  return read<LastBackup>(db, LAST);
}

export function saveLastBackup(db: Db, last: LastBackup): void {
  write(db, LAST, last);
}

export function readBackupSchedule(db: Db): BackupSchedule | null {
  return read<BackupSchedule>(db, SCHEDULE);
}

export function saveBackupSchedule(db: Db, schedule: BackupSchedule | null): void {
  if (schedule === null) db.prepare(`DELETE FROM node_settings WHERE key = ?`).run(SCHEDULE);
  else write(db, SCHEDULE, schedule);
}
