/**
 * Backups of the node's database (`/v1/node/backups`): one now into a folder the owner chooses, the
 * last one's time and folder, a schedule the node keeps, and the backup being written now, which
 * the owner can follow and cancel. A backup folder holds sealed chunks
 * and manifests only; what it reveals is in docs/security.md.
 */
import { z } from 'zod';

/** A folder on the node's machine, as an absolute path (a relative one is refused with SVC_ERR_BACKUP_FOLDER_RELATIVE). */
const folder = z.string().min(1).max(4096);

/** `POST /v1/node/backups`: back up now into `to` (made 0700 when absent). */
export const StartBackupBody = z.strictObject({ to: folder });
export type StartBackupInput = z.input<typeof StartBackupBody>;

/** What one backup wrote. */
export const BackupResult = z.object({
  /** The backup's id: its time, compact (`20261207T200146123Z`); `kit restore` names a backup by it. */
  backup_id: z.string(),
  created_at: z.string(),
  /** The chunks the backup names. */
  chunks: z.number().int().min(0),
  /** How many of them were new to the folder, and written now. */
  chunks_written: z.number().int().min(0),
  /** The database's size: what the backup restores. */
  bytes: z.number().int().min(0),
  /** What was written to the folder now: new chunks and the manifest, sealed. */
  bytes_written: z.number().int().min(0),
  /** The backups the folder keeps after this one, this one included. */
  kept: z.number().int().min(0),
  /** The backups the retention rule deleted now. */
  removed: z.number().int().min(0),
});
export type BackupResult = z.output<typeof BackupResult>;

/** Every `every_hours` hours the node backs up into `to`. */
export const BackupSchedule = z.object({ to: z.string(), every_hours: z.number().int() });
export type BackupSchedule = z.output<typeof BackupSchedule>;

/** `PUT /v1/node/backups/schedule`: `every_hours` 0 stops the schedule. */
export const BackupScheduleBody = z.strictObject({
  to: folder,
  every_hours: z.number().int('use a whole number of hours').min(0, 'use 0 (off) to 720 hours').max(720, 'use 0 (off) to 720 hours'),
});
export type BackupScheduleInput = z.input<typeof BackupScheduleBody>;

/**
 * Where a backup being written is: `reading` the database's pages (no count yet), writing its
 * `chunks`, backing up the documents' `files`, `finishing` (its manifest, then the retention rule;
 * from here it is no longer cancelled).
 */
export const BackupPhase = z.enum(['reading', 'chunks', 'files', 'finishing']);
export type BackupPhase = z.output<typeof BackupPhase>;

/** The backup being written now, the owner's or the schedule's. */
export const RunningBackup = z.object({
  started_at: z.string(),
  /** The folder it is written into. */
  to: z.string(),
  phase: BackupPhase,
  /** How many of the phase's `total` chunks or files are done; both 0 while the phase has no count. */
  done: z.number().int().min(0),
  total: z.number().int().min(0),
});
export type RunningBackup = z.output<typeof RunningBackup>;

/** `GET /v1/node/backups`: when the last backup was written, where, the schedule, and the backup being written now. */
export const BackupStatus = z.object({
  last_backup_at: z.string().nullable(),
  last_backup_to: z.string().nullable(),
  /** null: no schedule. */
  schedule: BackupSchedule.nullable(),
  /** null: none is being written. `DELETE /v1/node/backups/running` cancels it. */
  running: RunningBackup.nullable(),
});
export type BackupStatus = z.output<typeof BackupStatus>;
