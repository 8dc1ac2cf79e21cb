/**
 * One backup of the running node's database into a folder: the decrypted pages read in memory
 * (snapshot-store.ts), cut into chunks, each chunk not already in the folder sealed and written,
 * then the manifest naming them, then the retention rule applied: manifests it does not keep are
 * deleted first, and only then the chunks no kept manifest names. Every file is written whole or
 * not at all (folder.ts), and the manifest only once its chunks are on disk, so an interrupted
 * backup leaves at worst chunks no manifest names, which the next backup's retention removes.
 */
import type { Database } from '../../store/database.ts';
import { backUpAssets } from './asset-files.ts';
import { gatherPages, pagesPerChunk, sealChunk, sealedSize } from './chunks.ts';
import { BackupFolder, backupIdOf, syncDirectory } from './folder.ts';
import { backupKeys, chunkName, folderCheck, type BackupKeys } from './keys.ts';
import { chunkLayout, toRuns } from './layout.ts';
import { openManifest, sealManifest, type Manifest, type ManifestChunk } from './manifest.ts';
import { backupsToKeep } from './retention.ts';
import { schemaVersion } from '../../store/migrate.ts';
import { snapshotImage } from './snapshot-store.ts';

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

  const image = snapshotImage(options.db, options.maxImageBytes);
  const schema_version = schemaVersion(options.db);
  const chunks: ManifestChunk[] = [];
  let chunksWritten = 0;
  let bytesWritten = 0;
  try {
    for (const pages of chunkLayout(image.pageCount, image.facts, pagesPerChunk(image.pageSize))) {
      const plaintext = gatherPages(image.bytes, image.pageSize, pages);
      const name = chunkName(keys, plaintext);
      chunks.push({ name, pages: toRuns(pages) });
      // A chunk already in the folder is the same plaintext (its name is its HMAC): written once.
      if (!(await folder.hasChunk(name, sealedSize(plaintext.length)))) {
        const { box } = sealChunk(keys, plaintext);
        await folder.writeAtomically(folder.chunkPath(name), box);
        chunksWritten += 1;
        bytesWritten += box.length;
      }
      plaintext.fill(0);
    }
  } finally {
    image.bytes.fill(0);
  }
  // The files after the pages: a video uploaded meanwhile is in the files and not yet in the
  // database, which restores as an unused file; never a row whose file was left out.
  const files = options.assetsDir === undefined ? null : await backUpAssets(folder, keys, options.assetsDir);
  if (files !== null) {
    chunksWritten += files.chunksWritten;
    bytesWritten += files.bytesWritten;
  }
  await syncDirectory(folder.chunksDir);

  const manifest = sealManifest(keys, {
    backup_id,
    node_id: options.nodeId,
    created_at,
    schema_version,
    page_size: image.pageSize,
    image_size: image.pageSize * image.pageCount,
    chunks,
    ...(files === null ? {} : { assets: files.assets }),
  });
  await folder.writeAtomically(folder.manifestPath(backup_id), manifest);
  await syncDirectory(folder.manifestsDir);
  bytesWritten += manifest.length;

  const { kept, removed } = await applyRetention(folder, keys, createdAt);
  return {
    backup_id,
    created_at,
    chunks: chunks.length + (files?.assets.reduce((sum, asset) => sum + asset.chunks.length, 0) ?? 0),
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
