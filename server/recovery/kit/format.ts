/**
 * The recovery kit file: a versioned JSON header in the clear (what the kit is, which node, when,
 * the KDF and its parameters, the cipher) and one payload sealed with AES-256-GCM under a key
 * scrypt derives from the passphrase, with the header's canonical JSON as associated data. A wrong
 * passphrase and a change to any byte of the header or the payload fail the same tag check.
 *
 * The file is exactly its canonical JSON and a newline: a kit is read only in that form, so a
 * change to its layout (a space, a reordered key) is a changed kit too, never a kit that still opens.
 * Everything read is bounded before it is used: the file's size, its nesting, and the scrypt
 * parameters, which must lie within what custody's aead.ts computes.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson } from '../../crypto/canonical-json.ts';
import { isAcceptableScrypt, open, scryptKey, scryptParams, seal, type ScryptParams } from '../../custody/aead.ts';
import { nestsDeeperThan } from '../../http/json-body.ts';
import { MAX_JSON_DEPTH } from '../../json-depth.ts';
import { DOES_NOT_OPEN, RecoveryKitError } from './kit-error.ts';

export const KIT_FORMAT = 'svc-node.recovery-kit';
export const KIT_VERSION = 1;
/** log2 of scrypt's N for a new kit: 2^17 (about 0.4 s and 128 MiB), above identity backups' 2^15, since a kit holds every key. */
export const KIT_SCRYPT_COST = 17;
/** The largest kit file read or written; the owner API answers a kit inside a JSON body, which the CLI reads up to 16 MiB. */
export const KIT_MAX_BYTES = 8 * 1024 * 1024;

export interface KitHeader {
  format: typeof KIT_FORMAT;
  v: typeof KIT_VERSION;
  /** This kit's own id, so the app can say which kit it last made. */
  kit_id: string;
  node_id: string;
  created_at: string;
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  cipher: 'aes-256-gcm';
}

export interface SealKitOptions {
  kitId: string;
  nodeId: string;
  createdAt: string;
  /** log2 of scrypt's N (tests pass a lower one); KIT_SCRYPT_COST by default. */
  scryptCost?: number;
}

const HEADER_KEYS = ['cipher', 'created_at', 'format', 'kdf', 'kit_id', 'node_id', 'v'];
const KDF_KEYS = ['N', 'name', 'p', 'r', 'salt'];

const headerBytes = (header: KitHeader): Buffer => Buffer.from(canonicalJson(header));

/** The kit file's text: the header and the sealed payload, canonical JSON and a newline. */
export function sealKit(payload: Uint8Array, passphrase: string, options: SealKitOptions): string {
  const params = scryptParams(options.scryptCost ?? KIT_SCRYPT_COST);
  const salt = randomBytes(16);
  const header: KitHeader = {
    format: KIT_FORMAT,
    v: KIT_VERSION,
    kit_id: options.kitId,
    node_id: options.nodeId,
    created_at: options.createdAt,
    kdf: { name: 'scrypt', ...params, salt: salt.toString('base64') },
    cipher: 'aes-256-gcm',
  };
  const key = scryptKey(passphrase, salt, params);
  try {
    const sealed = seal(key, payload, headerBytes(header)).toString('base64');
    const text = `${canonicalJson({ ...header, sealed })}\n`;
    if (Buffer.byteLength(text) > KIT_MAX_BYTES) throw new RecoveryKitError('too_large', `the recovery kit would be larger than ${KIT_MAX_BYTES} bytes`);
    return text;
  } finally {
    key.fill(0);
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const hasExactly = (value: Record<string, unknown>, keys: string[]): boolean => Object.keys(value).sort().join() === keys.join();

const notAKit = (why: string): RecoveryKitError => new RecoveryKitError('not_a_kit', `this is not an svc-node recovery kit: ${why}`);

/** The header of a kit file, checked field by field (nothing is opened yet), and its sealed payload. */
export function readKit(text: string): { header: KitHeader; sealed: Buffer } {
  if (Buffer.byteLength(text) > KIT_MAX_BYTES) throw notAKit(`it is larger than ${KIT_MAX_BYTES} bytes`);
  if (nestsDeeperThan(Buffer.from(text), MAX_JSON_DEPTH)) throw notAKit('it nests too deep');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw notAKit('it is not JSON');
  }
  if (!isPlainObject(parsed) || parsed.format !== KIT_FORMAT) throw notAKit(`it does not say "format": "${KIT_FORMAT}"`);
  if (parsed.v !== KIT_VERSION) throw new RecoveryKitError('unsupported', `recovery kit version ${JSON.stringify(parsed.v)} is not one this svc-node reads`);
  const { sealed, ...header } = parsed;
  const { kdf } = header;
  if (
    !hasExactly(header, HEADER_KEYS) ||
    typeof header.kit_id !== 'string' ||
    typeof header.node_id !== 'string' ||
    typeof header.created_at !== 'string' ||
    header.cipher !== 'aes-256-gcm' ||
    !isPlainObject(kdf) ||
    !hasExactly(kdf, KDF_KEYS) ||
    kdf.name !== 'scrypt' ||
    typeof kdf.salt !== 'string' ||
    !isAcceptableScrypt(kdf) ||
    typeof sealed !== 'string'
  ) {
    throw notAKit('its header is damaged');
  }
  // Any other layout of the same values, or another spelling of the same sealed bytes, is a changed
  // kit: refused as the tag check refuses one.
  const box = Buffer.from(sealed, 'base64');
  if ((text !== `${canonicalJson(parsed)}\n` && text !== canonicalJson(parsed)) || box.toString('base64') !== sealed) {
    throw new RecoveryKitError('does_not_open', DOES_NOT_OPEN);
  }
  return { header: header as unknown as KitHeader, sealed: box };
}

/** The kit's header and its payload's bytes; a wrong passphrase or a changed byte is RecoveryKitError('does_not_open'). */
export function openKit(text: string, passphrase: string): { header: KitHeader; payload: Buffer } {
  const { header, sealed } = readKit(text);
  const { N, r, p, salt } = header.kdf;
  const params: ScryptParams = { N, r, p };
  const key = scryptKey(passphrase, Buffer.from(salt, 'base64'), params);
  try {
    const payload = open(key, sealed, headerBytes(header));
    if (payload === null) throw new RecoveryKitError('does_not_open', DOES_NOT_OPEN);
    return { header, payload };
  } finally {
    key.fill(0);
  }
}
