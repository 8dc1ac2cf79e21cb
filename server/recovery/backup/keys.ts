/**
 * The keys a backup folder is written with, each derived from the node's backup key (custody's
 * `backupKey()`, which the recovery kit carries) under a label of its own, so no key of one use
 * can ever open or name what another wrote.
 */
import { createHmac } from 'node:crypto';
import { deriveKey } from '../../custody/aead.ts';

const CHUNK_KEY_INFO = 'svc-node backup chunk seal v1';
const NAME_KEY_INFO = 'svc-node backup chunk name v1';
const MANIFEST_KEY_INFO = 'svc-node backup manifest seal v1';
const FOLDER_KEY_INFO = 'svc-node backup folder check v1';

export interface BackupKeys {
  /** Seals each chunk (AES-256-GCM). */
  chunk: Buffer;
  /** Names each chunk: an HMAC of its plaintext, so equal chunks share one file and names reveal nothing else. */
  name: Buffer;
  /** Seals each manifest (AES-256-GCM). */
  manifest: Buffer;
  /** The folder's check value: which backup key a folder belongs to, without revealing it. */
  folder: Buffer;
}

/** What cutting a database into chunks needs, and all a worker thread that does it is given: no key of the manifests or the folder. */
export type ChunkKeys = Pick<BackupKeys, 'chunk' | 'name'>;

export function backupKeys(backupKey: Uint8Array): BackupKeys {
  if (backupKey.length !== 32) throw new RangeError('a backup key is 32 bytes');
  return {
    chunk: deriveKey(backupKey, CHUNK_KEY_INFO),
    name: deriveKey(backupKey, NAME_KEY_INFO),
    manifest: deriveKey(backupKey, MANIFEST_KEY_INFO),
    folder: deriveKey(backupKey, FOLDER_KEY_INFO),
  };
}

/** A chunk's file name: the hex HMAC-SHA256 of its plaintext. */
export function chunkName(keys: Pick<BackupKeys, 'name'>, plaintext: Uint8Array): string {
  return createHmac('sha256', keys.name).update(plaintext).digest('hex');
}

/** The value a folder's marker holds: the same for every node holding this backup key, and nothing more. */
export function folderCheck(keys: BackupKeys): string {
  return createHmac('sha256', keys.folder).update('svc-node backup folder').digest('hex');
}
