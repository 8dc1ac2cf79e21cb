/**
 * Uploaded videos on disk, never in the database (buffered whole and stored as blobs, six
 * parallel 190 MB uploads once took the node to 2 GiB of memory and the database to 1.2 GB).
 *
 * `DIR/assets/<asset_id>` holds a ready video; while its bytes arrive they go to
 * `DIR/assets/<asset_id>.part`, written chunk by chunk as they come off the socket and renamed
 * into place only once complete and flushed, so a crash never leaves a truncated video under its
 * final name. Asset ids are UUIDs, unique across teams, so one flat folder serves them all (and
 * team ids, `name:domain`, would not be valid file names everywhere). Folder 0700, files 0600.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isAssetId } from '../domain/asset-id.ts';

const PART = '.part';

export class AssetFiles {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Where a ready video's bytes are. */
  pathOf(assetId: string): string {
    return join(this.dir, assetId);
  }

  /** The size of a ready video's file, or null when it is not there. */
  sizeOf(assetId: string): number | null {
    try {
      return statSync(this.pathOf(assetId)).size;
    } catch {
      return null;
    }
  }

  /**
   * Writes `chunks` to the asset's partial file as they arrive; `accept(chunk, total)` sees each
   * chunk before it is written and throws to refuse the upload. On any failure the partial file
   * is gone before this rejects. Returns the number of bytes written.
   */
  async receive(assetId: string, chunks: AsyncIterable<Buffer>, accept: (chunk: Buffer, total: number) => void): Promise<number> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const part = this.#partOf(assetId);
    rmSync(part, { force: true });
    const file = await open(part, 'wx', 0o600);
    let total = 0;
    try {
      for await (const chunk of chunks) {
        total += chunk.length;
        accept(chunk, total);
        for (let written = 0; written < chunk.length;) written += (await file.write(chunk, written)).bytesWritten;
      }
      // On disk before the database says ready: a power cut must not leave a ready, truncated video.
      await file.datasync();
    } catch (error) {
      await file.close();
      await rm(part, { force: true });
      throw error;
    }
    await file.close();
    return total;
  }

  /** Moves a completely received file to its final name. */
  async publish(assetId: string): Promise<void> {
    await rename(this.#partOf(assetId), this.pathOf(assetId));
  }

  async discard(assetId: string): Promise<void> {
    await rm(this.#partOf(assetId), { force: true });
    await rm(this.pathOf(assetId), { force: true });
  }

  /**
   * Removes every file that `keep(assetId)` does not claim, and every partial file that is not
   * being written (`writing(assetId)`): what an aborted upload or a crash left. Returns how many.
   */
  sweep(keep: (assetId: string) => boolean, writing: (assetId: string) => boolean): number {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const partial = name.endsWith(PART);
      const assetId = partial ? name.slice(0, -PART.length) : name;
      if (!isAssetId(assetId)) continue;
      if (writing(assetId) || (!partial && keep(assetId))) continue;
      rmSync(join(this.dir, name), { force: true });
      removed++;
    }
    return removed;
  }

  #partOf(assetId: string): string {
    return join(this.dir, `${assetId}${PART}`);
  }
}
