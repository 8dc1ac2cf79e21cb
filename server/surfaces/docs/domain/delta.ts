/**
 * Version storage for documents: history must not cost a full copy per version (versions are
 * append-only and never deleted, so full copies would grow without bound).
 *
 * Every version is stored as a delta against the one before it: the length of the common prefix,
 * the length of the common suffix and the changed middle, all in UTF-8 bytes (so a split inside a
 * multi-byte character is harmless: reconstruction works on bytes too). Every SNAPSHOT_INTERVAL-th
 * version (1, 65, 129, ...) is a full snapshot instead, so version n is its snapshot plus at most
 * SNAPSHOT_INTERVAL - 1 deltas. Payloads are deflate-raw compressed when that makes them smaller.
 *
 * Pure: no database here; the document service stores and loads these records.
 */
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';

export const SNAPSHOT_INTERVAL = 64;

/** Payloads this small are never worth a deflate call. */
const MIN_COMPRESS_BYTES = 64;
/** Large snapshots use the fastest level: they sit on the append path every 64th version. */
const FAST_LEVEL_FROM_BYTES = 256 * 1024;
/** Compared natively this many bytes at a time before the byte-by-byte tail. */
const CHUNK = 4096;

export type StoredKind = 'snapshot' | 'delta';

export interface StoredVersion {
  kind: StoredKind;
  /** Bytes kept from the start of the previous version (0 for a snapshot). */
  prefix_len: number;
  /** Bytes kept from the end of the previous version (0 for a snapshot). */
  suffix_len: number;
  /** The whole body (snapshot) or the changed middle (delta), compressed when `compressed`. */
  payload: Buffer;
  compressed: boolean;
}

/** Whether version `n` (1-based) is stored as a full snapshot. */
export function isSnapshotVersion(n: number): boolean {
  return (n - 1) % SNAPSHOT_INTERVAL === 0;
}

/** The snapshot version version `n` is rebuilt from. */
export function snapshotVersionFor(n: number): number {
  return n - ((n - 1) % SNAPSHOT_INTERVAL);
}

/** Length of the longest common prefix of `a` and `b`. */
export function commonPrefix(a: Buffer, b: Buffer): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i + CHUNK <= max && a.compare(b, i, i + CHUNK, i, i + CHUNK) === 0) i += CHUNK;
  while (i < max && a[i] === b[i]) i++;
  return i;
}

/** Length of the longest common suffix of `a` and `b`, at most `limit`. */
export function commonSuffix(a: Buffer, b: Buffer, limit = Math.min(a.length, b.length)): number {
  let n = 0;
  while (n + CHUNK <= limit && a.compare(b, b.length - n - CHUNK, b.length - n, a.length - n - CHUNK, a.length - n) === 0) n += CHUNK;
  while (n < limit && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

function pack(bytes: Buffer): { payload: Buffer; compressed: boolean } {
  if (bytes.length < MIN_COMPRESS_BYTES) return { payload: bytes, compressed: false };
  const level = bytes.length >= FAST_LEVEL_FROM_BYTES ? constants.Z_BEST_SPEED : constants.Z_DEFAULT_COMPRESSION;
  const deflated = deflateRawSync(bytes, { level });
  return deflated.length < bytes.length ? { payload: deflated, compressed: true } : { payload: bytes, compressed: false };
}

function unpack(stored: StoredVersion): Buffer {
  return stored.compressed ? inflateRawSync(stored.payload) : stored.payload;
}

export function encodeSnapshot(body: Buffer): StoredVersion {
  return { kind: 'snapshot', prefix_len: 0, suffix_len: 0, ...pack(body) };
}

/** `next` as a delta against `previous`. */
export function encodeDelta(previous: Buffer, next: Buffer): StoredVersion {
  const prefix = commonPrefix(previous, next);
  const suffix = commonSuffix(previous, next, Math.min(previous.length, next.length) - prefix);
  return { kind: 'delta', prefix_len: prefix, suffix_len: suffix, ...pack(next.subarray(prefix, next.length - suffix)) };
}

/** How version `n` is stored, given the body of version n-1 (null for version 1). */
export function encodeVersion(n: number, previous: Buffer | null, body: Buffer): StoredVersion {
  return previous === null || isSnapshotVersion(n) ? encodeSnapshot(body) : encodeDelta(previous, body);
}

/** The body a stored version describes, given the previous body (ignored for a snapshot). */
export function applyStored(previous: Buffer | null, stored: StoredVersion): Buffer {
  const bytes = unpack(stored);
  if (stored.kind === 'snapshot') return bytes;
  if (previous === null) throw new Error('A delta needs the previous version');
  if (stored.prefix_len < 0 || stored.suffix_len < 0 || stored.prefix_len + stored.suffix_len > previous.length) {
    throw new Error('Delta does not fit the previous version');
  }
  return Buffer.concat([previous.subarray(0, stored.prefix_len), bytes, previous.subarray(previous.length - stored.suffix_len)]);
}

/** Rebuilds the last body of a chain that starts at a snapshot. */
export function reconstruct(chain: readonly StoredVersion[]): Buffer {
  if (chain.length === 0 || chain[0]!.kind !== 'snapshot') throw new Error('A version chain starts at a snapshot');
  let body: Buffer | null = null;
  for (const stored of chain) body = applyStored(body, stored);
  return body!;
}

/** Bytes a stored version costs in payload and length fields (what a benchmark sums). */
export function storedSize(stored: StoredVersion): number {
  return stored.payload.length;
}
