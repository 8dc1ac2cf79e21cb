/**
 * The identity backup blobs: one signing seed sealed under a passphrase (scrypt + AES-256-GCM),
 * with its did:key in the clear (and bound as AAD) so a user can tell backups apart; and beside it
 * the identity's encryption keys, sealed the same way with their public keys in the clear.
 * Versioned JSON, so later formats can be read beside these.
 */
import { randomBytes } from 'node:crypto';
import { didKeyFromPublicKey } from '../crypto/did-key.ts';
import { x25519PublicKey } from '../crypto/e2ee/x25519.ts';
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

export const ENCRYPTION_KEYS_BACKUP_FORMAT = 'svc-node.encryption-keys-backup';

interface EncryptionKeysBlob {
  format: typeof ENCRYPTION_KEYS_BACKUP_FORMAT;
  v: 1;
  /** The X25519 public keys, unpadded base64, in the order of the sealed private keys; bound as AAD. */
  public_keys: string[];
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  cipher: 'aes-256-gcm';
  sealed: string;
}

const rawBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');

/**
 * An identity's X25519 encryption keys (current and archived), sealed together under a passphrase
 * with one scrypt: an identity with many rotated keys still backs up in one step.
 */
export function sealEncryptionKeysBackup(privateKeys: Uint8Array[], passphrase: string, scryptCost?: number): string {
  if (!passphrase) throw invalid('SVC_ERR_BACKUP_PASSPHRASE_REQUIRED', 'a backup passphrase is required');
  const publicKeys = privateKeys.map((key) => rawBase64(x25519PublicKey(key)));
  const params = scryptParams(scryptCost);
  const salt = randomBytes(16);
  const plaintext = Buffer.concat(privateKeys);
  try {
    const blob: EncryptionKeysBlob = {
      format: ENCRYPTION_KEYS_BACKUP_FORMAT,
      v: 1,
      public_keys: publicKeys,
      kdf: { name: 'scrypt', ...params, salt: salt.toString('base64') },
      cipher: 'aes-256-gcm',
      sealed: seal(scryptKey(passphrase, salt, params), plaintext, Buffer.from(publicKeys.join(','))).toString('base64'),
    };
    return JSON.stringify(blob);
  } finally {
    plaintext.fill(0);
  }
}

/** The private keys inside an encryption keys backup, in order; the caller must wipe them after use. */
export function openEncryptionKeysBackup(text: string, passphrase: string): Buffer[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('SVC_ERR_BACKUP_INVALID', 'the encryption keys backup is not JSON');
  }
  const blob = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Partial<EncryptionKeysBlob>;
  if (blob.format !== ENCRYPTION_KEYS_BACKUP_FORMAT) throw invalid('SVC_ERR_BACKUP_INVALID', 'this is not an svc-node encryption keys backup');
  if (blob.v !== 1) throw invalid('SVC_ERR_BACKUP_VERSION_UNSUPPORTED', `encryption keys backup version ${String(blob.v)} is not supported by this svc-node`);
  const { kdf, public_keys: publicKeys } = blob;
  if (
    !Array.isArray(publicKeys) ||
    !publicKeys.every((key) => typeof key === 'string') ||
    typeof blob.sealed !== 'string' ||
    blob.cipher !== 'aes-256-gcm' ||
    kdf?.name !== 'scrypt' ||
    typeof kdf.salt !== 'string' ||
    !isAcceptableScrypt(kdf)
  ) {
    throw invalid('SVC_ERR_BACKUP_INVALID', 'the encryption keys backup is damaged');
  }
  const key = scryptKey(passphrase, Buffer.from(kdf.salt, 'base64'), { N: kdf.N, r: kdf.r, p: kdf.p });
  const plaintext = open(key, Buffer.from(blob.sealed, 'base64'), Buffer.from(publicKeys.join(',')));
  if (plaintext === null) throw invalid('SVC_ERR_BACKUP_PASSPHRASE_WRONG', 'the passphrase does not open this encryption keys backup');
  try {
    if (plaintext.length !== publicKeys.length * 32) throw invalid('SVC_ERR_BACKUP_INVALID', 'the encryption keys backup is damaged');
    const privateKeys = publicKeys.map((_, i) => Buffer.from(plaintext.subarray(i * 32, (i + 1) * 32)));
    if (privateKeys.some((privateKey, i) => rawBase64(x25519PublicKey(privateKey)) !== publicKeys[i])) {
      for (const privateKey of privateKeys) privateKey.fill(0);
      throw invalid('SVC_ERR_BACKUP_INVALID', 'the encryption keys backup is damaged: a private key does not match its public key');
    }
    return privateKeys;
  } finally {
    plaintext.fill(0);
  }
}
