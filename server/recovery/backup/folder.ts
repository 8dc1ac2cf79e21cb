/**
 * A backup folder on disk: where its parts live, how each is written so an interrupted backup
 * never leaves a half-written file under a name a manifest could point at, and the marker that
 * says which backup key the folder belongs to.
 *
 *   DIR/svc-node-backup.json   the marker: format, version, and a check value of the backup key
 *   DIR/manifests/ID.manifest  one sealed manifest per backup, ID its time (20261207T200146123Z)
 *   DIR/chunks/NAME            one sealed chunk per distinct plaintext, NAME an HMAC of it
 *   DIR/tmp/                   files being written, renamed into place once on disk
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { BackupFolderError, BackupKeyMismatchError, BackupNotFoundError, BackupTamperedError } from './errors.ts';

export const MARKER_FILE = 'svc-node-backup.json';
const MARKER_FORMAT = 'svc-node.backup-folder';
const MANIFEST_SUFFIX = '.manifest';
/** A backup's id: its UTC time, compact and sortable. */
const BACKUP_ID = /^\d{8}T\d{9}Z$/;
const CHUNK_NAME = /^[0-9a-f]{64}$/;

export class BackupFolder {
  readonly dir: string;

  constructor(dir: string) {
    checkFolderPath(dir);
    this.dir = dir;
  }

  get chunksDir(): string {
    return join(this.dir, 'chunks');
  }

  get manifestsDir(): string {
    return join(this.dir, 'manifests');
  }

  chunkPath(name: string): string {
    return join(this.chunksDir, name);
  }

  manifestPath(id: string): string {
    return join(this.manifestsDir, `${id}${MANIFEST_SUFFIX}`);
  }

  /**
   * Makes the folder ready to be written (0700 when it is made here), or finds it is another backup
   * key's: its marker's check value must be `check`. A folder without a marker becomes this key's.
   */
  async prepare(check: string): Promise<void> {
    const found = await stat(this.dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (found !== null && !found.isDirectory()) throw new BackupFolderError('not_directory', `${this.dir} is not a directory`);
    for (const dir of [this.dir, this.chunksDir, this.manifestsDir, join(this.dir, 'tmp')]) await mkdir(dir, { recursive: true, mode: 0o700 });
    const marker = await this.#readMarker();
    if (marker === null) {
      await this.writeAtomically(join(this.dir, MARKER_FILE), Buffer.from(`${JSON.stringify({ format: MARKER_FORMAT, v: 1, check })}\n`));
      await syncDirectory(this.dir);
    } else if (marker !== check) {
      throw new BackupKeyMismatchError(`${this.dir} holds backups made under another backup key`);
    }
  }

  /** Refuses a folder that holds no backups, or another key's. */
  async expect(check: string): Promise<void> {
    const marker = await this.#readMarker();
    if (marker === null) throw new BackupNotFoundError(`${this.dir} holds no svc-node backups`);
    if (marker !== check) throw new BackupKeyMismatchError(`${this.dir} holds backups made under another backup key`);
  }

  /** The ids of the backups in the folder, oldest first. */
  async backupIds(): Promise<string[]> {
    const names = await readdir(this.manifestsDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    return names
      .filter((name) => name.endsWith(MANIFEST_SUFFIX))
      .map((name) => name.slice(0, -MANIFEST_SUFFIX.length))
      .filter((id) => BACKUP_ID.test(id))
      .sort();
  }

  /** The names of every chunk in the folder. */
  async chunkNames(): Promise<string[]> {
    return (await readdir(this.chunksDir)).filter((name) => CHUNK_NAME.test(name));
  }

  /** Whether the chunk `name` is in the folder at the size its sealed form has (one cut short or grown is written again). */
  async hasChunk(name: string, sealedSize: number): Promise<boolean> {
    return stat(this.chunkPath(name)).then(
      (found) => found.isFile() && found.size === sealedSize,
      () => false,
    );
  }

  async read(path: string): Promise<Buffer | null> {
    return readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
  }

  /**
   * `data` at `path`, whole or not at all: written to a temporary file in the folder, flushed to
   * disk, then renamed over `path` (the caller syncs the directory once a batch is in place).
   */
  async writeAtomically(path: string, data: Uint8Array): Promise<void> {
    const temp = join(this.dir, 'tmp', `${randomUUID()}.tmp`);
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async remove(path: string): Promise<void> {
    await rm(path, { force: true });
  }

  /** Temporary files an interrupted backup left: never named by a manifest, so they only take room. */
  async removeLeftovers(): Promise<void> {
    const tmp = join(this.dir, 'tmp');
    for (const name of await readdir(tmp)) if (name.endsWith('.tmp')) await rm(join(tmp, name), { force: true });
  }

  async #readMarker(): Promise<string | null> {
    const text = await this.read(join(this.dir, MARKER_FILE));
    if (text === null) return null;
    let marker: { format?: unknown; check?: unknown } = {};
    try {
      marker = JSON.parse(text.toString('utf8')) as typeof marker;
    } catch {
      // Not JSON: refused below as any other marker that is not ours.
    }
    if (marker.format !== MARKER_FORMAT || typeof marker.check !== 'string') {
      throw new BackupTamperedError(`${join(this.dir, MARKER_FILE)} is not an svc-node backup folder's marker`);
    }
    return marker.check;
  }
}

/** A backup folder is named by an absolute path: a relative one would depend on where the node was started. */
export function checkFolderPath(dir: string): void {
  if (!isAbsolute(dir)) throw new BackupFolderError('relative', `the backup folder must be an absolute path (got ${dir})`);
}

/** A backup's id from its time: `2026-12-07T20:01:46.123Z` → `20261207T200146123Z`. */
export function backupIdOf(createdAt: string): string {
  return createdAt.replace(/[-:.]/g, '');
}

/** Makes the renames in `dir` durable (POSIX; Windows cannot open a directory, and its renames are journaled). */
export async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
