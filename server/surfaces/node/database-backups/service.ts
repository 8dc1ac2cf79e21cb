/**
 * The node's database backups as the owner runs them: one now, into the folder the owner names
 * (server/recovery/backup/ writes it, under custody's backup key), the last one's time and folder,
 * and the schedule, which a timer of the node's checks each minute against the node's clock.
 * One backup at a time: a second asked for meanwhile is refused, a scheduled one waits its turn.
 */
import type { BackupResult, BackupSchedule, BackupStatus } from '../../../../contract/node/backups.ts';
import type { NodeContext } from '../../../context.ts';
import { conflict, malformed } from '../../../errors.ts';
import {
  BackupFolderError,
  BackupKeyMismatchError,
  BackupTamperedError,
  BackupTooLargeError,
  checkFolderPath,
  writeBackup,
} from '../../../recovery/backup/index.ts';
import { readBackupSchedule, readLastBackup, saveBackupSchedule, saveLastBackup } from './store.ts';

const HOUR_MS = 60 * 60 * 1000;
/** How often the timer asks whether a scheduled backup is due. */
export const SCHEDULE_CHECK_MS = 60 * 1000;

export interface DatabaseBackupsOptions {
  /** The documents' uploaded files beside the database (`DATA/assets`), backed up with it. */
  assetsDir?: string;
  /** How often the schedule is checked (tests shorten it). */
  checkEveryMs?: number;
  /** Told of a scheduled backup that failed (the node logs it); the schedule tries again after its interval. */
  onError?: (error: unknown) => void;
}

export class DatabaseBackups {
  readonly #ctx: NodeContext;
  readonly #nodeId: string;
  readonly #options: DatabaseBackupsOptions;
  #running: Promise<BackupResult> | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** When the schedule last tried, failed or not: a failing folder is tried again an interval later, not each minute. */
  #lastAttempt: number | null = null;

  constructor(ctx: NodeContext, nodeId: string, options: DatabaseBackupsOptions = {}) {
    this.#ctx = ctx;
    this.#nodeId = nodeId;
    this.#options = options;
  }

  /** A backup now into `to`; refused while another is being written. */
  async backUp(to: string): Promise<BackupResult> {
    if (this.#running !== null) throw conflict('SVC_ERR_BACKUP_RUNNING', 'a backup is already being written; try again when it is done');
    const running = this.#write(to);
    this.#running = running;
    try {
      return await running;
    } finally {
      this.#running = null;
    }
  }

  status(): BackupStatus {
    const last = readLastBackup(this.#ctx.db);
    return { last_backup_at: last?.at ?? null, last_backup_to: last?.to ?? null, schedule: readBackupSchedule(this.#ctx.db) };
  }

  /** Sets the schedule (`every_hours` 0 clears it); the folder is checked now, as a backup would check it. */
  schedule(body: BackupSchedule): BackupStatus {
    if (body.every_hours === 0) saveBackupSchedule(this.#ctx.db, null);
    else {
      checkAbsolute(body.to);
      saveBackupSchedule(this.#ctx.db, body);
    }
    this.#lastAttempt = null;
    return this.status();
  }

  /** Starts the timer that runs scheduled backups. */
  start(): void {
    this.#timer ??= setInterval(() => {
      this.runDue().catch((error: unknown) => this.#options.onError?.(error));
    }, this.#options.checkEveryMs ?? SCHEDULE_CHECK_MS).unref();
  }

  /** Stops the timer, and waits for a backup being written to finish. */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running?.catch(() => undefined);
  }

  /** The scheduled backup, when one is due on the node's clock; null when none is (or one is being written). */
  async runDue(): Promise<BackupResult | null> {
    const schedule = readBackupSchedule(this.#ctx.db);
    if (schedule === null || this.#running !== null) return null;
    const now = this.#ctx.clock.now().getTime();
    // A backup into the scheduled folder (scheduled or the owner's own) counts; one elsewhere does not.
    const lastBackup = readLastBackup(this.#ctx.db);
    const lastHere = lastBackup?.to === schedule.to ? Date.parse(lastBackup.at) : 0;
    if (now - Math.max(lastHere, this.#lastAttempt ?? 0) < schedule.every_hours * HOUR_MS) return null;
    this.#lastAttempt = now;
    return this.backUp(schedule.to);
  }

  async #write(to: string): Promise<BackupResult> {
    checkAbsolute(to);
    try {
      const result = await writeBackup({
        db: this.#ctx.db,
        dir: to,
        backupKey: this.#ctx.custody.backupKey(),
        nodeId: this.#nodeId,
        now: this.#ctx.clock.now(),
        ...(this.#options.assetsDir === undefined ? {} : { assetsDir: this.#options.assetsDir }),
      });
      saveLastBackup(this.#ctx.db, { at: result.created_at, to });
      return result;
    } catch (error) {
      throw refusal(error, to);
    }
  }
}

function checkAbsolute(to: string): void {
  try {
    checkFolderPath(to);
  } catch (error) {
    throw refusal(error, to);
  }
}

/** The owner API's refusal for what went wrong writing into `to`; anything else as it is. */
function refusal(error: unknown, to: string): unknown {
  if (error instanceof BackupFolderError) {
    return error.reason === 'relative'
      ? malformed('SVC_ERR_BACKUP_FOLDER_RELATIVE', error.message)
      : conflict('SVC_ERR_BACKUP_FOLDER_NOT_DIRECTORY', error.message);
  }
  if (error instanceof BackupKeyMismatchError || error instanceof BackupTamperedError) {
    return conflict('SVC_ERR_BACKUP_FOLDER_FOREIGN', `${to} holds something other than this node's backups: ${error.message}`);
  }
  if (error instanceof BackupTooLargeError) return conflict('SVC_ERR_BACKUP_TOO_LARGE', error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return conflict('SVC_ERR_BACKUP_FOLDER_UNWRITABLE', `cannot write the backup into ${to}: ${(error as Error).message}`);
  }
  return error;
}
