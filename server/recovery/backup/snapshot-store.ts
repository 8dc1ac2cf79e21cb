/**
 * A consistent copy of the live database's pages, decrypted, in memory only.
 *
 * A backup reads it in a worker thread (snapshot-worker.ts), over a connection of the worker's own
 * to the same file (openImageReader below): `serialize()` holds the thread that calls it for about
 * 10 ms per MB, and on the node's own connection that thread is the one that answers every request.
 * WAL lets the node keep committing while the worker's read transaction sees the database as it was
 * when it began.
 *
 * SQLCipher writes every page with a fresh IV and MAC, so the file on disk changes wholly between
 * two backups and could never be chunked incrementally; the decrypted pages change only where rows
 * did. `serialize()` on the node's own connection reads every page through SQLite's pager, which
 * hands out pages decrypted (page 1 with its "SQLite format 3" header restored): nothing is written
 * to any file, not even a temporary one, and the copy is one read transaction, so it is consistent.
 *
 * Memory: the whole image is held once while a backup runs (SQLite has no page-range read in this
 * build: the sqlite_dbpage table is not compiled in), and the chunks are views into it, sealed one
 * at a time; a database above MAX_IMAGE_BYTES is refused rather than read.
 */
import SQLite from 'better-sqlite3-multiple-ciphers';
import { keyConnection } from '../../store/cipher.ts';
import type { Database } from '../../store/database.ts';
import { BackupTooLargeError } from './errors.ts';
import type { PageFact } from './layout.ts';

/** 2 GiB: what a backup may hold in memory at once, about twice the largest node measured for. */
export const MAX_IMAGE_BYTES = 2 * 1024 ** 3;

const HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** Header bytes 18 and 19: the file format's write and read versions (2: WAL, 1: rollback journal). */
const WRITE_VERSION = 18;
const READ_VERSION = 19;
/** Header byte 20: the bytes SQLCipher reserves at the end of every page for its IV and MAC. */
const RESERVED = 20;

export interface DatabaseImage {
  /** The pages, decrypted, one after the other. */
  bytes: Buffer;
  pageSize: number;
  pageCount: number;
  /** The table or index each page belongs to, and where in it (free pages are absent). */
  facts: PageFact[];
}

/**
 * A read-only connection to the node's database `file` under its SQLCipher `key`, with the cipher
 * settings store/database.ts opens it with (keyConnection: they must match, or no page decrypts). It never
 * migrates, writes or checkpoints: the node's own connection stays the only writer.
 */
export function openImageReader(file: string, key: Uint8Array): Database {
  if (key.length !== 32) throw new RangeError('database key must be 32 bytes');
  const db = new SQLite(file, { fileMustExist: true });
  try {
    keyConnection(db, key);
    db.pragma('busy_timeout=5000');
    db.pragma('query_only=ON');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The decrypted pages of `db`. Each page's reserved tail (the IV and MAC it had on disk, which
 * change on every write of it) is zeroed, so an unchanged page is the same bytes in every image;
 * and the header says rollback journal rather than WAL, so the image opens as a database in memory.
 */
export function snapshotImage(db: Database, limit: number = MAX_IMAGE_BYTES): DatabaseImage {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = db.pragma('page_count', { simple: true }) as number;
  if (pageSize * pages > limit) {
    throw new BackupTooLargeError(`the database is ${pageSize * pages} bytes; a backup holds at most ${limit} in memory`);
  }
  // One read transaction for both reads, so the owners are those of these very pages.
  return db.transaction(() => {
    const facts: PageFact[] = [];
    const rows = db.prepare(`SELECT pageno, name, path, pagetype FROM dbstat('main')`).raw().iterate() as IterableIterator<[number, string, string, string]>;
    for (const [page, owner, path, type] of rows) facts.push({ page, owner, path, interior: type === 'internal' });
    const bytes = db.serialize();
    return { bytes: normaliseImage(bytes), pageSize, pageCount: bytes.length / pageSize, facts };
  })();
}

/** Checks the header of a decrypted image and zeroes what differs between two copies of the same pages. */
export function normaliseImage(bytes: Buffer): Buffer {
  if (bytes.length < 100 || !bytes.subarray(0, HEADER.length).equals(HEADER)) throw new Error('the database image does not start with an SQLite header');
  const pageSize = pageSizeOf(bytes);
  if (bytes.length % pageSize !== 0) throw new Error('the database image is not a whole number of pages');
  const reserved = bytes[RESERVED] ?? 0;
  if (reserved > 0) {
    for (let end = pageSize; end <= bytes.length; end += pageSize) bytes.fill(0, end - reserved, end);
  }
  bytes[WRITE_VERSION] = 1;
  bytes[READ_VERSION] = 1;
  return bytes;
}

/** The page size an SQLite header states (bytes 16-17, big-endian; 1 stands for 65536). */
export function pageSizeOf(bytes: Buffer): number {
  const size = bytes.readUInt16BE(16);
  return size === 1 ? 65_536 : size;
}
