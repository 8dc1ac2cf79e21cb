/**
 * The documents' uploaded videos in a backup. They live as files beside the database
 * (`DATA/assets/<asset_id>`, surfaces/docs/assets/asset-files.ts), not in it, so a backup of the
 * database alone would bring back documents whose videos are gone. Each ready file is read in
 * pieces of CHUNK_BYTES, never whole, and each piece is a chunk like the database's: sealed under
 * the chunk key and named by its HMAC, so a video already backed up is not written again. The
 * manifest lists each file with its size and its chunks in order. A file still arriving
 * (`.part`), or anything that is not a plain file with an asset's name, is left out.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { CHUNK_BYTES, openChunk, sealChunk, sealedSize } from './chunks.ts';
import { BackupTamperedError } from './errors.ts';
import type { BackupFolder } from './folder.ts';
import { chunkName, type ChunkKeys } from './keys.ts';

/** One file of the assets folder in a manifest. */
export interface ManifestAsset {
  /** Its file name, an asset id. */
  id: string;
  size: number;
  /** Its chunks' names, in the order of its bytes. */
  chunks: string[];
}

/** An asset id as a file name: what the node names its files (UUIDs), and nothing that could leave the folder. */
export const ASSET_FILE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export interface AssetsWritten {
  assets: ManifestAsset[];
  chunksWritten: number;
  bytesWritten: number;
}

/**
 * Every ready file of `assetsDir` into the folder's chunks (those not there yet); none when the
 * folder does not exist. `onFile(done, total)` after each file. It runs in the snapshot worker
 * thread (snapshot-worker.ts), which a cancelled backup terminates.
 */
export async function backUpAssets(
  folder: BackupFolder,
  keys: ChunkKeys,
  assetsDir: string,
  onFile: (done: number, total: number) => void = () => undefined,
): Promise<AssetsWritten> {
  const written: AssetsWritten = { assets: [], chunksWritten: 0, bytesWritten: 0 };
  let names: string[];
  try {
    names = (await readdir(assetsDir, { withFileTypes: true })).filter((entry) => entry.isFile() && ASSET_FILE.test(entry.name)).map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return written;
    throw error;
  }
  for (const [index, id] of names.sort().entries()) {
    const asset = await backUpFile(folder, keys, join(assetsDir, id), id, written);
    // Deleted since the folder was read: the database snapshot taken before it may still name it; its row then has no file, as it would have had a moment later.
    if (asset !== null) written.assets.push(asset);
    onFile(index + 1, names.length);
  }
  return written;
}

async function backUpFile(folder: BackupFolder, keys: ChunkKeys, path: string, id: string, written: AssetsWritten): Promise<ManifestAsset | null> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const asset: ManifestAsset = { id, size: 0, chunks: [] };
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  try {
    for (;;) {
      // A piece is read whole (short reads are continued), so the same bytes always cut the same way.
      let filled = 0;
      while (filled < CHUNK_BYTES) {
        const { bytesRead } = await file.read(buffer, filled, CHUNK_BYTES - filled, null);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (filled === 0) break;
      const piece = buffer.subarray(0, filled);
      const name = chunkName(keys, piece);
      asset.chunks.push(name);
      asset.size += filled;
      if (!(await folder.hasChunk(name, sealedSize(filled)))) {
        const { box } = sealChunk(keys, piece);
        await folder.writeAtomically(folder.chunkPath(name), box);
        written.chunksWritten += 1;
        written.bytesWritten += box.length;
      }
      if (filled < CHUNK_BYTES) break;
    }
  } finally {
    await file.close();
  }
  return asset;
}

/**
 * The manifest's files written into `assetsDir` (made 0700), each checked chunk by chunk and
 * against its size, written under a temporary name and renamed whole. A BackupTamperedError for a
 * chunk missing, changed or of the wrong size, and then none of the files stays. Returns the paths
 * written, for a caller that fails later to take back.
 */
export async function restoreAssets(folder: BackupFolder, keys: ChunkKeys, assets: readonly ManifestAsset[], assetsDir: string): Promise<string[]> {
  const done: string[] = [];
  if (assets.length === 0) return done;
  mkdirSync(assetsDir, { recursive: true, mode: 0o700 });
  try {
    for (const asset of assets) done.push(await restoreFile(folder, keys, asset, join(assetsDir, asset.id)));
  } catch (error) {
    await Promise.all(done.map((path) => rm(path, { force: true })));
    throw error;
  }
  return done;
}

async function restoreFile(folder: BackupFolder, keys: ChunkKeys, asset: ManifestAsset, target: string): Promise<string> {
  const temp = `${target}.restoring`;
  const out = createWriteStream(temp, { mode: 0o600 });
  try {
    let size = 0;
    for (const name of asset.chunks) {
      const box = await folder.read(folder.chunkPath(name));
      if (box === null) throw new BackupTamperedError(`chunk ${name} of the file ${asset.id} is missing`);
      const plaintext = openChunk(keys, name, box);
      size += plaintext.length;
      if (!out.write(plaintext)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    if (size !== asset.size) throw new BackupTamperedError(`the file ${asset.id} is not the size its manifest says`);
    await rename(temp, target);
    return target;
  } catch (error) {
    out.destroy();
    await rm(temp, { force: true });
    throw error;
  }
}

/** Whether a manifest's `assets` is a list of files this code wrote: checked before a restore leans on it. */
export function isAssetList(value: unknown): value is ManifestAsset[] {
  return (
    Array.isArray(value) &&
    value.every(
      (asset: Partial<ManifestAsset>) =>
        typeof asset.id === 'string' &&
        ASSET_FILE.test(asset.id) &&
        typeof asset.size === 'number' &&
        Number.isInteger(asset.size) &&
        asset.size >= 0 &&
        Array.isArray(asset.chunks) &&
        asset.chunks.every((name) => typeof name === 'string'),
    )
  );
}
