/**
 * The identity backup blob: one signing seed sealed under a passphrase (scrypt + AES-256-GCM),
 * with its did:key in the clear (and bound as AAD) so a user can tell backups apart. Versioned
 * JSON, so later formats can be read beside this one.
 */
import { randomBytes } from 'node:crypto';
import { didKeyFromPublicKey } from '../crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey } from '../crypto/ed25519.ts';
import { invalid } from '../errors.ts';
import { isAcceptableScrypt, open, scryptKey, scryptParams, seal } from './aead.ts';

export const BACKUP_FORMAT = 'svc-node.key-backup';

interface BackupBlob {
  format: typeof BACKUP_FORMAT;
  v: 1;
  did_key: string;
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  cipher: 'aes-256-gcm';
  sealed: string;
}

export function didKeyOfSeed(seed: Uint8Array): string {
  return didKeyFromPublicKey(rawPublicKey(privateKeyFromSeed(seed)));
}

export function sealKeyBackup(seed: Uint8Array, passphrase: string, scryptCost?: number): string {
  if (!passphrase) throw invalid('SVC_ERR_BACKUP_PASSPHRASE_REQUIRED', 'a backup passphrase is required');
  const didKey = didKeyOfSeed(seed);
  const params = scryptParams(scryptCost);
  const salt = randomBytes(16);
  const blob: BackupBlob = {
    format: BACKUP_FORMAT,
    v: 1,
    did_key: didKey,
    kdf: { name: 'scrypt', ...params, salt: salt.toString('base64') },
    cipher: 'aes-256-gcm',
    sealed: seal(scryptKey(passphrase, salt, params), seed, Buffer.from(didKey)).toString('base64'),
  };
  return JSON.stringify(blob);
}

/** The seed and did:key inside a backup; the caller must wipe the seed after use. */
export function openKeyBackup(text: string, passphrase: string): { seed: Buffer; didKey: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('SVC_ERR_BACKUP_INVALID', 'the key backup is not JSON');
  }
  // Any JSON value parses: only an object can be a backup, and its fields are checked one by one.
  const blob = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Partial<BackupBlob>;
  if (blob.format !== BACKUP_FORMAT) {
    throw invalid('SVC_ERR_BACKUP_INVALID', 'this is not an svc-node key backup');
  }
  if (blob.v !== 1) throw invalid('SVC_ERR_BACKUP_VERSION_UNSUPPORTED', `key backup version ${String(blob.v)} is not supported by this svc-node`);
  const { kdf } = blob;
  if (
    typeof blob.did_key !== 'string' ||
    typeof blob.sealed !== 'string' ||
    blob.cipher !== 'aes-256-gcm' ||
    kdf?.name !== 'scrypt' ||
    typeof kdf.salt !== 'string' ||
    !isAcceptableScrypt(kdf)
  ) {
    throw invalid('SVC_ERR_BACKUP_INVALID', 'the key backup is damaged');
  }
  const key = scryptKey(passphrase, Buffer.from(kdf.salt, 'base64'), { N: kdf.N, r: kdf.r, p: kdf.p });
  const seed = open(key, Buffer.from(blob.sealed, 'base64'), Buffer.from(blob.did_key));
  if (seed === null) throw invalid('SVC_ERR_BACKUP_PASSPHRASE_WRONG', 'the passphrase does not open this key backup');
  if (seed.length !== 32 || didKeyOfSeed(seed) !== blob.did_key) {
    seed.fill(0);
    throw invalid('SVC_ERR_BACKUP_INVALID', 'the key backup is damaged: its seed does not match its did_key');
  }
  return { seed, didKey: blob.did_key };
}
