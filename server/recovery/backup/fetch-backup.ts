/**
 * One backup copied from elsewhere into a local backup folder, part by part: a device joining
 * another fetches the snapshot that device wrote for it. The manifest is fetched first and opened
 * with the backup key (so the folder is known to be this key's before anything else is asked
 * for), then every chunk it names that the folder does not already hold at its sealed size, each
 * checked (its seal and its name) as it arrives and written whole or not at all. An interrupted
 * copy resumes where it stopped: what arrived is kept and not asked for again.
 *
 * The parts travel sealed, as the folder holds them: whoever carries them sees ciphertext only.
 */
import { openChunk } from './chunks.ts';
import { BackupTamperedError } from './errors.ts';
import { BackupFolder, syncDirectory } from './folder.ts';
import { backupKeys, folderCheck } from './keys.ts';
import { openManifest } from './manifest.ts';

export type BackupPart = { kind: 'manifest'; backupId: string } | { kind: 'chunk'; name: string };

export interface FetchBackupOptions {
  backupKey: Uint8Array;
  backupId: string;
  /** The local folder (an absolute path), made when absent. */
  dir: string;
  /** Asks for one part's sealed bytes. */
  fetchPart: (part: BackupPart) => Promise<Buffer>;
  /** Parts asked for at once (default 4). */
  concurrency?: number;
  /** Told after each chunk that arrived or was already there. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

export interface FetchedBackup {
  chunks: number;
  /** Chunks fetched now (the others were in the folder already). */
  fetched: number;
  bytes: number;
}

export async function fetchBackup(options: FetchBackupOptions): Promise<FetchedBackup> {
  const keys = backupKeys(options.backupKey);
  const folder = new BackupFolder(options.dir);
  await folder.prepare(folderCheck(keys));
  await folder.removeLeftovers();
  const sealed = await options.fetchPart({ kind: 'manifest', backupId: options.backupId });
  const manifest = openManifest(keys, options.backupId, sealed);
  const names = [...new Set([...manifest.chunks.map((chunk) => chunk.name), ...(manifest.assets ?? []).flatMap((asset) => asset.chunks)])];
  let done = 0;
  let fetched = 0;
  let bytes = sealed.length;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const name = names[next++]!;
      const path = folder.chunkPath(name);
      const present = await folder.read(path);
      if (present === null || !isWhole(keys, name, present)) {
        const box = await options.fetchPart({ kind: 'chunk', name });
        // Checked before it is kept: a changed or swapped chunk never enters the folder.
        openChunk(keys, name, box).fill(0);
        await folder.writeAtomically(path, box);
        fetched += 1;
        bytes += box.length;
      }
      done += 1;
      options.onProgress?.({ done, total: names.length });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 4, names.length)) }, worker));
  await syncDirectory(folder.chunksDir);
  // The manifest last: a folder names a backup only once every chunk of it is there.
  await folder.writeAtomically(folder.manifestPath(options.backupId), sealed);
  await syncDirectory(folder.manifestsDir);
  return { chunks: names.length, fetched, bytes };
}

function isWhole(keys: ReturnType<typeof backupKeys>, name: string, box: Buffer): boolean {
  try {
    openChunk(keys, name, box).fill(0);
    return true;
  } catch (error) {
    if (error instanceof BackupTamperedError) return false;
    throw error;
  }
}
