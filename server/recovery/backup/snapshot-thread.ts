/**
 * One backup's snapshot and chunks (and the documents' files after them), written by a worker
 * thread of its own (snapshot-worker.ts) while the node's event loop goes on answering: the worker
 * reports the image read and each chunk and file done, and is terminated when the backup is
 * cancelled. A worker lives for one backup only (backups are
 * minutes or hours apart), so nothing of a backup's keys or pages outlives it.
 */
import { Worker } from 'node:worker_threads';
import type { Database } from '../../store/database.ts';
import { lazily } from '../../lazy.ts';
import { BackupCancelledError, BackupTooLargeError } from './errors.ts';
import type { ChunkKeys } from './keys.ts';
import { snapshotImage } from './snapshot-store.ts';
// Types only: a value imported from snapshot-worker.ts would bundle it into the main chunk (see there).
import type { CrossedError, SnapshotJob, SnapshotReply } from './snapshot-worker.ts';
import type { AssetsWritten } from './asset-files.ts';
import type { ImageChunksWritten } from './image-chunks.ts';

/** The process's Node flags, less `--input-type`, which no worker started from a file may have. */
const WORKER_EXEC_ARGV = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));

const workerEntry = lazily(async () => {
  const { SNAPSHOT_WORKER_URL, SNAPSHOT_WORKER_ROLE } = await import('./snapshot-worker.ts');
  return { url: new URL(SNAPSHOT_WORKER_URL), role: SNAPSHOT_WORKER_ROLE };
});

export interface SnapshotInWorkerOptions {
  db: Database;
  /** The SQLCipher key of `db`'s file: with it the worker reads the database itself. Without it the image is read here, on the calling thread, as before workers. */
  databaseKey?: Uint8Array;
  limit: number;
  dir: string;
  keys: ChunkKeys;
  /** The documents' uploaded files, backed up after the pages. */
  assetsDir?: string;
  /** The image is read (its size in bytes). */
  onRead?: (bytes: number) => void;
  /** A chunk is in the folder: `done` of `total`. */
  onChunk?: (done: number, total: number) => void;
  /** The files began (0 of 0), or one more is in the folder: `done` of `total`. */
  onFile?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface SnapshotWritten extends ImageChunksWritten {
  pageSize: number;
  pageCount: number;
  /** The documents' files; null when no assetsDir was given. */
  files: AssetsWritten | null;
}

/** The database's chunks written into the folder by a worker; a BackupCancelledError once `signal` aborts and the worker has stopped. */
export async function snapshotInWorker(options: SnapshotInWorkerOptions): Promise<SnapshotWritten> {
  const { db, databaseKey, signal } = options;
  if (signal?.aborted) throw new BackupCancelledError('the backup was cancelled before it began');
  const { url, role } = await workerEntry();
  const source: SnapshotJob['source'] =
    databaseKey !== undefined && !db.memory ? { file: db.name, key: databaseKey } : { image: snapshotImage(db, options.limit) };
  const job: SnapshotJob = {
    role,
    source,
    limit: options.limit,
    dir: options.dir,
    chunkKey: options.keys.chunk,
    nameKey: options.keys.name,
    ...(options.assetsDir === undefined ? {} : { assetsDir: options.assetsDir }),
  };
  if (signal?.aborted) throw new BackupCancelledError('the backup was cancelled before it began');
  const worker = new Worker(url, { workerData: job, execArgv: WORKER_EXEC_ARGV });
  // The image read here was copied to the worker: this thread's copy is cleared now.
  if ('image' in source) source.image.bytes.fill(0);
  return new Promise<SnapshotWritten>((resolve, reject) => {
    let settled = false;
    // Settled once the worker is gone: after that nothing more of this backup touches the folder
    // or holds a read transaction on the database (a worker inside serialize() stops when it returns).
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', cancel);
      worker.terminate().then(outcome, outcome);
    };
    const cancel = (): void => settle(() => reject(new BackupCancelledError('the backup was cancelled; no backup was added to the folder')));
    signal?.addEventListener('abort', cancel, { once: true });
    worker.on('message', (reply: SnapshotReply) => {
      if (reply.type === 'read') options.onRead?.(reply.bytes);
      else if (reply.type === 'chunk') options.onChunk?.(reply.done, reply.total);
      else if (reply.type === 'file') options.onFile?.(reply.done, reply.total);
      else if (reply.type === 'done') {
        const { pageSize, pageCount, chunks, chunksWritten, bytesWritten, files } = reply;
        settle(() => resolve({ pageSize, pageCount, chunks, chunksWritten, bytesWritten, files }));
      } else settle(() => reject(uncrossed(reply.error)));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the backup's worker thread stopped (exit code ${code}) before it was done`))));
  });
}

/** The worker's refusal as the error the callers know by name (a system error keeps its code). */
function uncrossed(error: CrossedError): Error {
  if (error.name === 'BackupTooLargeError') return new BackupTooLargeError(error.message);
  const found = new Error(error.message) as NodeJS.ErrnoException;
  if (error.code !== undefined) found.code = error.code;
  return found;
}
