/**
 * Reading a backup back: the newest manifest in a folder (or a named one), every chunk it names
 * read and checked (its seal and its name), the image put together in memory, and only when all of
 * it passed, written as a new SQLCipher database under the key given (rebuild-store.ts). A changed
 * byte anywhere refuses the restore with a BackupTamperedError and writes nothing.
 */
import { existsSync, rmSync } from 'node:fs';
import { openChunk, scatterPages } from './chunks.ts';
import { BackupNotFoundError, BackupTamperedError, RestoreTargetExistsError } from './errors.ts';
import { restoreAssets } from './asset-files.ts';
import { BackupFolder } from './folder.ts';
import { backupKeys, folderCheck } from './keys.ts';
import { fromRuns } from './layout.ts';
import type { Manifest } from './manifest.ts';
import { rebuildDatabase } from './rebuild-store.ts';
import { normaliseImage, pageSizeOf } from './snapshot-store.ts';
import { readManifest } from './write-backup.ts';

export interface RestoreDatabaseOptions {
  /** The backup folder (an absolute path). */
  backupDir: string;
  /** The 32-byte key the backups were sealed under (custody's backupKey(), or the kit's). */
  backupKey: Uint8Array;
  /** The database file to make; it must not exist. */
  file: string;
  /** The raw 32-byte SQLCipher key of the new file (the restored node's Custody.databaseKey()). */
  key: Uint8Array;
  /** The backup to restore, by id (as `backup_id` names it); default the newest. */
  manifest?: string;
  /** Where the backup's files go (the new data dir's `assets`); the database alone when absent. */
  assetsDir?: string;
}

/** What was restored. */
export interface RestoredBackup {
  backup_id: string;
  node_id: string;
  created_at: string;
  schema_version: number;
  bytes: number;
}

/** A backup as a listing shows it. */
export type BackupSummary = RestoredBackup & { chunks: number };

export async function restoreDatabase(options: RestoreDatabaseOptions): Promise<RestoredBackup> {
  const keys = backupKeys(options.backupKey);
  const folder = new BackupFolder(options.backupDir);
  await folder.expect(folderCheck(keys));
  if (existsSync(options.file)) throw new RestoreTargetExistsError(`${options.file} already exists; a restore writes a new database`);

  const ids = await folder.backupIds();
  const id = options.manifest ?? ids.at(-1);
  if (id === undefined || !ids.includes(id)) {
    throw new BackupNotFoundError(id === undefined ? `${options.backupDir} holds no backups` : `${options.backupDir} holds no backup ${id}`);
  }
  const manifest = await readManifest(folder, keys, id);
  if (manifest === null) throw new BackupNotFoundError(`${options.backupDir} holds no backup ${id}`);

  const pageCount = manifest.image_size / manifest.page_size;
  const image = Buffer.alloc(manifest.image_size);
  const placed = new Uint8Array(pageCount + 1);
  try {
    for (const { name, pages: runs } of manifest.chunks) {
      const box = await folder.read(folder.chunkPath(name));
      if (box === null) throw new BackupTamperedError(`chunk ${name} of backup ${id} is missing`);
      const plaintext = openChunk(keys, name, box);
      const pages = fromRuns(runs);
      if (plaintext.length !== pages.length * manifest.page_size)
        throw new BackupTamperedError(`chunk ${name} of backup ${id} is not the size its manifest says`);
      for (const page of pages) {
        if (!Number.isInteger(page) || page < 1 || page > pageCount || placed[page] === 1)
          throw new BackupTamperedError(`backup ${id} places a page twice or outside the database`);
        placed[page] = 1;
      }
      scatterPages(plaintext, image, manifest.page_size, pages);
      plaintext.fill(0);
    }
    if (placed.indexOf(0, 1) !== -1) throw new BackupTamperedError(`backup ${id} leaves pages of the database out`);
    if (pageSizeOf(normaliseImage(image)) !== manifest.page_size) throw new BackupTamperedError(`backup ${id} is not the database its manifest describes`);
    // The files before the database, each checked: a changed one refuses the restore before the database is written.
    const files = options.assetsDir === undefined ? [] : await restoreAssets(folder, keys, manifest.assets ?? [], options.assetsDir);
    try {
      rebuildDatabase(image, options.file, options.key);
    } catch (error) {
      for (const path of files) rmSync(path, { force: true });
      throw error;
    }
  } finally {
    image.fill(0);
  }
  return summary(manifest);
}

/** The backups in a folder that `backupKey` opens, oldest first. */
export async function listBackups(options: { backupDir: string; backupKey: Uint8Array }): Promise<BackupSummary[]> {
  const keys = backupKeys(options.backupKey);
  const folder = new BackupFolder(options.backupDir);
  await folder.expect(folderCheck(keys));
  const found: BackupSummary[] = [];
  for (const id of await folder.backupIds()) {
    const manifest = await readManifest(folder, keys, id);
    if (manifest !== null) found.push({ ...summary(manifest), chunks: manifest.chunks.length });
  }
  return found;
}

function summary(manifest: Manifest): RestoredBackup {
  const { backup_id, node_id, created_at, schema_version, image_size } = manifest;
  return { backup_id, node_id, created_at, schema_version, bytes: image_size };
}
