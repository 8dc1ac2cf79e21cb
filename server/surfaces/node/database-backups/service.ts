/**
 * The node's database backups as the owner runs them: one now, into the folder the owner names
 * (server/recovery/backup/ writes it, under custody's backup key, in a worker thread that reads the
 * database over its own connection), the last one's time and folder, and the schedule, which a
 * timer of the node's checks each minute against the node's clock. One backup at a time: a second
 * asked for meanwhile is refused, a scheduled one waits its turn. The one being written shows where
 * it is in the status, and the owner can cancel it; so does the node stopping.
 */
import type { BackupResult, BackupSchedule, BackupStatus, RunningBackup } from '../../../../contract/node/backups.ts';
import type { NodeContext } from '../../../context.ts';
import { conflict, malformed, notFound } from '../../../errors.ts';
import {
  BackupCancelledError,
  BackupFolderError,
  BackupKeyMismatchError,
  BackupTamperedError,
  BackupTooLargeError,
  checkFolderPath,
  writeBackup,
} from '../../../recovery/backup/index.ts';
import { readBackupSchedule, readLastBackup, saveBackupSchedule, saveLastBackup } from './store.ts';

const HOUR_MS = 60 * 60 * 1000;
/** How often a running backup's progress is told at most (each chunk would be hundreds a second on a fast disk). */
export const PROGRESS_EVERY_MS = 250;
/** How often the timer asks whether a scheduled backup is due. */
export const SCHEDULE_CHECK_MS = 60 * 1000;

export interface DatabaseBackupsOptions {
  /** The documents' uploaded files beside the database (`DATA/assets`), backed up with it. */
  assetsDir?: string;
  /** How often the schedule is checked (tests shorten it). */
  checkEveryMs?: number;
  /** Told of a scheduled backup that failed (the node logs it); the schedule tries again after its interval. */
  onError?: (error: unknown) => void;
  /** Told when a backup starts, moves on (at most every PROGRESS_EVERY_MS) and ends; the status says where it is. */
  onProgress?: () => void;
}

/** The backup being written: where it is, how to stop it, and its outcome. */
interface Running {
  state: RunningBackup;
  cancel: AbortController;
  result: Promise<BackupResult>;
}

export class DatabaseBackups {
  readonly #ctx: NodeContext;
  readonly #nodeId: string;
  readonly #options: DatabaseBackupsOptions;
  #running: Running | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** When the schedule last tried, failed or not: a failing folder is tried again an interval later, not each minute. */
  #lastAttempt: number | null = null;
  /** When the progress was last told, and whether a later change waits to be. */
  #toldAt = 0;
  #tellLater: NodeJS.Timeout | null = null;

  constructor(ctx: NodeContext, nodeId: string, options: DatabaseBackupsOptions = {}) {
    this.#ctx = ctx;
    this.#nodeId = nodeId;
    this.#options = options;
  }

  /** A backup now into `to`; refused while another is being written, and when it is cancelled. */
  async backUp(to: string): Promise<BackupResult> {
    if (this.#running !== null) throw conflict('SVC_ERR_BACKUP_RUNNING', 'a backup is already being written; try again when it is done');
    const cancel = new AbortController();
    const state: RunningBackup = { started_at: this.#ctx.clock.now().toISOString(), to, phase: 'reading', done: 0, total: 0 };
    const running: Running = { state, cancel, result: this.#write(to, state, cancel.signal) };
    this.#running = running;
    this.#tell(true);
    try {
      return await running.result;
    } finally {
      this.#running = null;
      this.#tell(true);
    }
  }

  status(): BackupStatus {
    const last = readLastBackup(this.#ctx.db);
    return {
      last_backup_at: last?.at ?? null,
      last_backup_to: last?.to ?? null,
      schedule: readBackupSchedule(this.#ctx.db),
      running: this.#running === null ? null : { ...this.#running.state },
    };
  }

  /**
   * Cancels the backup being written and answers the status once it has stopped: no backup was
   * added to its folder. One already writing its manifest finishes, and the status then names it
   * as the last backup. A 404 when none is being written.
   */
  async cancel(): Promise<BackupStatus> {
    const running = this.#running;
    if (running === null) throw notFound('SVC_ERR_BACKUP_NOT_RUNNING', 'no backup is being written (one may have just finished)');
    running.cancel.abort();
    await running.result.catch(() => undefined);
    return this.status();
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

  /** Stops the timer, and cancels a backup being written (the schedule writes it again once due). */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    const running = this.#running;
    running?.cancel.abort();
    await running?.result.catch(() => undefined);
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

  /** Tells onProgress now when `now` (a backup started or ended) or when it was not told for PROGRESS_EVERY_MS; else once that time is up. */
  #tell(now: boolean): void {
    const tell = this.#options.onProgress;
    if (tell === undefined) return;
    const wait = this.#toldAt + PROGRESS_EVERY_MS - Date.now();
    if (now || wait <= 0) {
      if (this.#tellLater !== null) clearTimeout(this.#tellLater);
      this.#tellLater = null;
      this.#toldAt = Date.now();
      tell();
    } else {
      this.#tellLater ??= setTimeout(() => {
        this.#tellLater = null;
        this.#toldAt = Date.now();
        tell();
      }, wait).unref();
    }
  }

  async #write(to: string, state: RunningBackup, signal: AbortSignal): Promise<BackupResult> {
    checkAbsolute(to);
    const databaseKey = this.#ctx.custody.databaseKey();
    try {
      const result = await writeBackup({
        db: this.#ctx.db,
        databaseKey,
        dir: to,
        backupKey: this.#ctx.custody.backupKey(),
        nodeId: this.#nodeId,
        now: this.#ctx.clock.now(),
        ...(this.#options.assetsDir === undefined ? {} : { assetsDir: this.#options.assetsDir }),
        onProgress: ({ phase, done, total }) => {
          Object.assign(state, { phase, done, total });
          this.#tell(false);
        },
        signal,
      });
      saveLastBackup(this.#ctx.db, { at: result.created_at, to });
      return result;
    } catch (error) {
      throw refusal(error, to);
    } finally {
      databaseKey.fill(0);
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
  if (error instanceof BackupCancelledError) return conflict('SVC_ERR_BACKUP_CANCELLED', error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return conflict('SVC_ERR_BACKUP_FOLDER_UNWRITABLE', `cannot write the backup into ${to}: ${(error as Error).message}`);
  }
  return error;
}
