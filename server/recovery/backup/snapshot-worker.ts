/**
 * The snapshot worker thread: one backup's database image read (snapshot-store.ts) over a
 * connection of this thread's own, then cut, named, sealed and written into the folder's chunks
 * (image-chunks.ts), and the documents' uploaded files after it (asset-files.ts), beside the
 * node's event loop. snapshot-thread.ts starts one per backup, hears
 * its progress, and terminates it to cancel the backup: every file lands whole or not at all
 * (folder.ts), so a worker stopped anywhere leaves at worst chunks no manifest names.
 *
 * It is given the database file and its SQLCipher key, and of the backup's keys only the two that
 * seal and name chunks; the manifest, which makes a backup of what it wrote, stays the main
 * thread's. A backup of a database only open in memory (no file to reopen) hands it the image
 * read on the main thread instead.
 *
 * As the seal and render workers (server/crypto/e2ee/seal-worker.ts, server/markdown/worker.ts),
 * the main thread starts this very module through SNAPSHOT_WORKER_URL, which is right in the
 * sources and in the bundled build alike; so it imports nothing at its top but worker_threads and
 * types, and loads the rest inside the thread.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { AssetsWritten } from './asset-files.ts';
import type { ManifestChunk } from './manifest.ts';
import type { PageFact } from './layout.ts';

/** Passed as workerData's `role`: this module serves only when started for a backup. */
export const SNAPSHOT_WORKER_ROLE = 'svc-node:snapshot-worker';

/** This module's own URL: the worker's entry point. */
export const SNAPSHOT_WORKER_URL: string = import.meta.url;

/** An image read on the main thread, as it crosses to the worker. */
export interface ImageReadAlready {
  bytes: Uint8Array;
  pageSize: number;
  pageCount: number;
  facts: PageFact[];
}

export interface SnapshotJob {
  role: string;
  /** The live database to read (its file and SQLCipher key), or its image read already. */
  source: { file: string; key: Uint8Array } | { image: ImageReadAlready };
  /** The most bytes of database read into memory. */
  limit: number;
  /** The backup folder, prepared by the main thread. */
  dir: string;
  chunkKey: Uint8Array;
  nameKey: Uint8Array;
  /** The documents' uploaded files (`DATA/assets`), backed up after the pages; none when absent. */
  assetsDir?: string;
}

/** A refusal as it crosses back: its class's name, its message, and a system error's code. */
export interface CrossedError {
  name: string;
  message: string;
  code?: string;
}

export type SnapshotReply =
  | { type: 'read'; bytes: number }
  | { type: 'chunk'; done: number; total: number }
  | { type: 'file'; done: number; total: number }
  | { type: 'done'; pageSize: number; pageCount: number; chunks: ManifestChunk[]; chunksWritten: number; bytesWritten: number; files: AssetsWritten | null }
  | { type: 'failed'; error: CrossedError };

/** A byte array that crossed threads, as a Buffer over the same memory. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

async function serve(port: NonNullable<typeof parentPort>, job: SnapshotJob): Promise<void> {
  const { openImageReader, snapshotImage } = await import('./snapshot-store.ts');
  const { BackupFolder } = await import('./folder.ts');
  const { writeImageChunks } = await import('./image-chunks.ts');
  const { backUpAssets } = await import('./asset-files.ts');
  const reply = (message: SnapshotReply): void => port.postMessage(message);
  let image;
  if ('file' in job.source) {
    const db = openImageReader(job.source.file, job.source.key);
    try {
      image = snapshotImage(db, job.limit);
    } finally {
      db.close();
    }
  } else {
    image = { ...job.source.image, bytes: asBuffer(job.source.image.bytes) };
  }
  reply({ type: 'read', bytes: image.pageSize * image.pageCount });
  const { pageSize, pageCount } = image;
  const keys = { chunk: asBuffer(job.chunkKey), name: asBuffer(job.nameKey) };
  const folder = new BackupFolder(job.dir);
  const written = await writeImageChunks(image, folder, keys, (done, total) => reply({ type: 'chunk', done, total }));
  // The files after the pages: a video uploaded meanwhile is in the files and not yet in the
  // database, which restores as an unused file; never a row whose file was left out.
  let files: AssetsWritten | null = null;
  if (job.assetsDir !== undefined) {
    reply({ type: 'file', done: 0, total: 0 });
    files = await backUpAssets(folder, keys, job.assetsDir, (done, total) => reply({ type: 'file', done, total }));
  }
  keys.chunk.fill(0);
  keys.name.fill(0);
  reply({ type: 'done', pageSize, pageCount, ...written, files });
}

function crossed(error: unknown): CrossedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as NodeJS.ErrnoException).code;
  return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}

if (!isMainThread && parentPort !== null && (workerData as Partial<SnapshotJob> | null)?.role === SNAPSHOT_WORKER_ROLE) {
  const port = parentPort;
  serve(port, workerData as SnapshotJob).catch((error: unknown) => port.postMessage({ type: 'failed', error: crossed(error) } satisfies SnapshotReply));
}
