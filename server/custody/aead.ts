/**
 * The few primitives custody builds on, each in one place: HKDF-SHA256 key derivation,
 * AES-256-GCM sealing (iv || ciphertext || tag), and bounded scrypt.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, scryptSync } from 'node:crypto';

const IV_LENGTH = 12;
const TAG_LENGTH = 16;

/** A 32-byte key for one purpose, named by `info`, from a 32-byte secret. */
export function deriveKey(secret: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, 32));
}

export function seal(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Buffer {
  const iv = randomBytes(IV_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  return Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/** The plaintext, or null when the key, the AAD or the box is wrong. */
export function open(key: Uint8Array, box: Uint8Array, aad: Uint8Array): Buffer | null {
  if (box.length < IV_LENGTH + TAG_LENGTH) return null;
  const data = Buffer.from(box);
  const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_LENGTH));
  decipher.setAAD(aad);
  decipher.setAuthTag(data.subarray(data.length - TAG_LENGTH));
  try {
    return Buffer.concat([decipher.update(data.subarray(IV_LENGTH, data.length - TAG_LENGTH)), decipher.final()]);
  } catch {
    return null;
  }
}

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** 2^15 costs about 100 ms and 32 MiB here; tests pass a lower cost. */
export const DEFAULT_SCRYPT_COST = 15;
// Bounds on parameters read back from files, so a crafted file cannot demand gigabytes.
const MIN_COST = 10;
const MAX_COST = 20;

export function scryptParams(cost: number = DEFAULT_SCRYPT_COST): ScryptParams {
  if (!Number.isInteger(cost) || cost < MIN_COST || cost > MAX_COST) {
    throw new RangeError(`scrypt cost must be an integer from ${MIN_COST} to ${MAX_COST} (log2 N)`);
  }
  return { N: 2 ** cost, r: 8, p: 1 };
}

/** True when params read from a file are within the bounds this node will compute. */
export function isAcceptableScrypt(params: unknown): params is ScryptParams {
  const { N, r, p } = (params ?? {}) as Record<string, unknown>;
  return typeof N === 'number' && Number.isInteger(Math.log2(N)) && N >= 2 ** MIN_COST && N <= 2 ** MAX_COST && r === 8 && p === 1;
}

export function scryptKey(passphrase: string, salt: Uint8Array, params: ScryptParams): Buffer {
  return scryptSync(passphrase.normalize('NFC'), salt, 32, {
    ...params,
    maxmem: 256 * params.N * params.r,
  });
}
