/**
 * A database image into a backup folder's chunks: cut in the order layout.ts gives, each chunk
 * named by the HMAC of its plaintext, and sealed and written only when the folder does not hold
 * it yet. It runs in the snapshot worker thread (snapshot-worker.ts), where hashing and sealing a
 * gigabyte takes its seconds beside the node's event loop rather than on it.
 */
import { gatherPages, pagesPerChunk, sealChunk, sealedSize } from './chunks.ts';
import type { BackupFolder } from './folder.ts';
import { chunkName, type ChunkKeys } from './keys.ts';
import { chunkLayout, toRuns } from './layout.ts';
import type { ManifestChunk } from './manifest.ts';
import type { DatabaseImage } from './snapshot-store.ts';

export interface ImageChunksWritten {
  /** Every chunk of the image, in order, as the manifest names them. */
  chunks: ManifestChunk[];
  chunksWritten: number;
  bytesWritten: number;
}

/** Writes the chunks of `image` the folder lacks; `onChunk(done, total)` after each chunk. The image is zeroed once read. */
export async function writeImageChunks(
  image: DatabaseImage,
  folder: BackupFolder,
  keys: ChunkKeys,
  onChunk: (done: number, total: number) => void,
): Promise<ImageChunksWritten> {
  const written: ImageChunksWritten = { chunks: [], chunksWritten: 0, bytesWritten: 0 };
  try {
    const layout = chunkLayout(image.pageCount, image.facts, pagesPerChunk(image.pageSize));
    for (const pages of layout) {
      const plaintext = gatherPages(image.bytes, image.pageSize, pages);
      const name = chunkName(keys, plaintext);
      written.chunks.push({ name, pages: toRuns(pages) });
      // A chunk already in the folder is the same plaintext (its name is its HMAC): written once.
      if (!(await folder.hasChunk(name, sealedSize(plaintext.length)))) {
        const { box } = sealChunk(keys, plaintext);
        await folder.writeAtomically(folder.chunkPath(name), box);
        written.chunksWritten += 1;
        written.bytesWritten += box.length;
      }
      plaintext.fill(0);
      onChunk(written.chunks.length, layout.length);
    }
  } finally {
    image.bytes.fill(0);
  }
  return written;
}
