/**
 * One backup of the running node's database into a folder: the decrypted pages read, cut into
 * chunks, each chunk not already in the folder sealed and written, and the documents' files after
 * them (all of it in a worker thread, snapshot-thread.ts, so the node keeps answering meanwhile),
 * then the manifest naming them, then
 * the retention rule applied: manifests it does not keep are deleted first, and only then the
 * chunks no kept manifest names. Every file is written whole or not at all (folder.ts), and the
 * manifest only once its chunks are on disk, so an interrupted or cancelled backup leaves at worst
 * chunks no manifest names, which the next backup's retention removes.
 */
import type { Database } from '../../store/database.ts';
import { BackupCancelledError } from './errors.ts';
import { BackupFolder, backupIdOf, syncDirectory } from './folder.ts';
import { backupKeys, folderCheck, type BackupKeys } from './keys.ts';
import { openManifest, sealManifest, type Manifest } from './manifest.ts';
import { backupsToKeep } from './retention.ts';
import { schemaVersion } from '../../store/migrate.ts';
import { MAX_IMAGE_BYTES } from './snapshot-store.ts';
import { snapshotInWorker } from './snapshot-thread.ts';

/**
 * Where a backup is: `reading` the database's pages (no count yet), writing its `chunks` (done of
 * total), backing up the documents' `files` (done of total), `finishing` (the manifest and the
 * retention rule; past this a backup is no longer cancelled).
 */
export type BackupPhase = 'reading' | 'chunks' | 'files' | 'finishing';

export interface BackupProgress {
  phase: BackupPhase;
  done: number;
  total: number;
}

export interface WriteBackupOptions {
  db: Database;
  /** An absolute path; made (0700) when absent. */
  dir: string;
  backupKey: Uint8Array;
  nodeId: string;
  /** When the backup is taken (the node's clock). */
  now: Date;
  /** The most bytes of database read into memory (default snapshot-store.ts's MAX_IMAGE_BYTES). */
  maxImageBytes?: number;
  /** The folder of the documents' uploaded files (`DATA/assets`), backed up beside the database; none when absent. */
  assetsDir?: string;
  /**
   * The SQLCipher key `db` was opened with (custody's databaseKey()): with it the worker thread
   * reads the pages over a connection of its own, and the calling thread is never held. Without
   * it the pages are read on the calling thread (about 10 ms per MB during which it answers
   * nothing), then cut and sealed in the worker as well.
   */
  databaseKey?: Uint8Array;
  /** Told where the backup is, at each phase and after each chunk and file. */
  onProgress?: (progress: BackupProgress) => void;
  /** Cancels the backup until its manifest is being written: it then rejects with a BackupCancelledError, and the folder's backups are as they were. */
  signal?: AbortSignal;
}

export interface BackupResult {
  backup_id: string;
  created_at: string;
  /** How many chunks the backup names (the database's and its files'). */
  chunks: number;
  /** How many of them were new to the folder and written now. */
  chunks_written: number;
  /** The database's size: the bytes the backup restores. */
  bytes: number;
  /** What was written to the folder now: the new chunks and the manifest, sealed. */
  bytes_written: number;
  /** The backups the folder keeps after this one (this one included). */
  kept: number;
  /** The backups the retention rule deleted now. */
  removed: number;
}

export async function writeBackup(options: WriteBackupOptions): Promise<BackupResult> {
  const keys = backupKeys(options.backupKey);
  const folder = new BackupFolder(options.dir);
  await folder.prepare(folderCheck(keys));
  await folder.removeLeftovers();

  let createdAt = options.now;
  const taken = new Set(await folder.backupIds());
  while (taken.has(backupIdOf(createdAt.toISOString()))) createdAt = new Date(createdAt.getTime() + 1);
  const created_at = createdAt.toISOString();
  const backup_id = backupIdOf(created_at);

  const { signal } = options;
  const progress = (phase: BackupPhase, done: number, total: number): void => options.onProgress?.({ phase, done, total });
  progress('reading', 0, 0);
  const schema_version = schemaVersion(options.db);
  const image = await snapshotInWorker({
    db: options.db,
    ...(options.databaseKey === undefined ? {} : { databaseKey: options.databaseKey }),
    limit: options.maxImageBytes ?? MAX_IMAGE_BYTES,
    dir: options.dir,
    keys,
    ...(options.assetsDir === undefined ? {} : { assetsDir: options.assetsDir }),
    onRead: () => progress('chunks', 0, 0),
    onChunk: (done, total) => progress('chunks', done, total),
    onFile: (done, total) => progress('files', done, total),
    ...(signal === undefined ? {} : { signal }),
  });
  const { files } = image;
  const chunksWritten = image.chunksWritten + (files?.chunksWritten ?? 0);
  let bytesWritten = image.bytesWritten + (files?.bytesWritten ?? 0);
  await syncDirectory(folder.chunksDir);
  // The last moment a cancel is heard: from here the backup is added to the folder.
  if (signal?.aborted) throw new BackupCancelledError('the backup was cancelled; no backup was added to the folder');
  progress('finishing', 0, 0);

  const manifest = sealManifest(keys, {
    backup_id,
    node_id: options.nodeId,
    created_at,
    schema_version,
    page_size: image.pageSize,
    image_size: image.pageSize * image.pageCount,
    chunks: image.chunks,
    ...(files === null ? {} : { assets: files.assets }),
  });
  await folder.writeAtomically(folder.manifestPath(backup_id), manifest);
  await syncDirectory(folder.manifestsDir);
  bytesWritten += manifest.length;

  const { kept, removed } = await applyRetention(folder, keys, createdAt);
  return {
    backup_id,
    created_at,
    chunks: image.chunks.length + (files?.assets.reduce((sum, asset) => sum + asset.chunks.length, 0) ?? 0),
    chunks_written: chunksWritten,
    bytes: image.pageSize * image.pageCount,
    bytes_written: bytesWritten,
    kept,
    removed,
  };
}

/**
 * Deletes the manifests the retention rule does not keep at `now`, then every chunk no kept
 * manifest names. When a kept manifest cannot be opened, no chunk is deleted: which chunks it
 * needs is unknown, and a chunk kept too long costs only room.
 */
export async function applyRetention(folder: BackupFolder, keys: BackupKeys, now: Date): Promise<{ kept: number; removed: number }> {
  const ids = await folder.backupIds();
  const keep = backupsToKeep(
    ids.map((id) => ({ id, at: timeOf(id) })),
    now,
  );
  const dropped = ids.filter((id) => !keep.has(id));
  for (const id of dropped) await folder.remove(folder.manifestPath(id));
  if (dropped.length > 0) await syncDirectory(folder.manifestsDir);

  const named = new Set<string>();
  let complete = true;
  for (const id of keep) {
    const manifest = await readManifest(folder, keys, id).catch(() => null);
    if (manifest === null) {
      complete = false;
      break;
    }
    for (const chunk of manifest.chunks) named.add(chunk.name);
    for (const asset of manifest.assets ?? []) for (const name of asset.chunks) named.add(name);
  }
  if (complete) {
    for (const name of await folder.chunkNames()) if (!named.has(name)) await folder.remove(folder.chunkPath(name));
  }
  return { kept: keep.size, removed: dropped.length };
}

export async function readManifest(folder: BackupFolder, keys: BackupKeys, id: string): Promise<Manifest | null> {
  const box = await folder.read(folder.manifestPath(id));
  return box === null ? null : openManifest(keys, id, box);
}

/** The time a backup id names (`20261207T200146123Z`). */
export function timeOf(id: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/.exec(id);
  if (!m) throw new RangeError(`not a backup id: ${id}`);
  return new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z`);
}
