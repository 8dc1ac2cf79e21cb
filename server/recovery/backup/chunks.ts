/**
 * A database image cut into chunks, and each chunk sealed and checked. A chunk is at most 1 MiB of
 * whole pages (which pages: layout.ts), sealed with AES-256-GCM under the chunk key, its name (an HMAC of its plaintext) bound as
 * associated data: a chunk file swapped for another, or changed by one byte, fails to open.
 */
import { open, seal } from '../../custody/aead.ts';
import { BackupTamperedError } from './errors.ts';
import { chunkName, type ChunkKeys } from './keys.ts';

/** 1 MiB: small enough that 1,000 new mails rewrite a few of them, large enough that a 1 GB node is 1,024 files. */
export const CHUNK_BYTES = 1024 * 1024;

const CHUNK_AAD = 'svc-node backup chunk v1\n';
/** What sealing adds to a chunk: the IV and the tag (custody/aead.ts). */
const SEAL_OVERHEAD = 12 + 16;

/** The size of a chunk of `plaintextLength` bytes once sealed. */
export function sealedSize(plaintextLength: number): number {
  return plaintextLength + SEAL_OVERHEAD;
}

/** The most whole pages of `pageSize` that fit in CHUNK_BYTES. */
export function pagesPerChunk(pageSize: number): number {
  return Math.max(1, Math.floor(CHUNK_BYTES / pageSize));
}

/** A chunk's plaintext: its pages (numbered from 1) of the image, one after the other. */
export function gatherPages(image: Buffer, pageSize: number, pages: readonly number[]): Buffer {
  const chunk = Buffer.allocUnsafe(pages.length * pageSize);
  pages.forEach((page, i) => image.copy(chunk, i * pageSize, (page - 1) * pageSize, page * pageSize));
  return chunk;
}

/** The opposite: a chunk's pages put back in their places in the image. */
export function scatterPages(chunk: Buffer, image: Buffer, pageSize: number, pages: readonly number[]): void {
  pages.forEach((page, i) => chunk.copy(image, (page - 1) * pageSize, i * pageSize, (i + 1) * pageSize));
}

export interface SealedChunk {
  name: string;
  box: Buffer;
}

export function sealChunk(keys: ChunkKeys, plaintext: Buffer): SealedChunk {
  const name = chunkName(keys, plaintext);
  return { name, box: seal(keys.chunk, plaintext, aad(name)) };
}

/** The plaintext of the chunk stored as `name`; a BackupTamperedError when it is not exactly what was written under that name. */
export function openChunk(keys: ChunkKeys, name: string, box: Uint8Array): Buffer {
  const plaintext = open(keys.chunk, box, aad(name));
  if (plaintext === null || chunkName(keys, plaintext) !== name) throw new BackupTamperedError(`chunk ${name} does not pass its check`);
  return plaintext;
}

function aad(name: string): Buffer {
  return Buffer.from(`${CHUNK_AAD}${name}`, 'utf8');
}
