/**
 * The keys bundle a joining device receives: every key custody holds (archived and destroyed ones
 * as a recovery kit holds them) and the backup key, in the recovery kit's payload format, sealed
 * by HPKE to the joining device's X25519 key. Only that device can open it: the linking device,
 * the transport and whoever relays it see ciphertext. The info binds it to the node and to the
 * device it was made for, so a bundle cannot be replayed to another device or read as another
 * node's.
 */
import { fromBase64Url, toBase64Url } from '../crypto/encoding.ts';
import { HPKE_X25519_SHA256_AES256GCM, setupBaseRecipient, setupBaseSender } from '../crypto/e2ee/hpke.ts';
import type { X25519Agreement } from '../crypto/e2ee/x25519.ts';
import { decodePayload, encodePayload, type KitContents } from '../recovery/kit/payload.ts';
import type { KeyMaterial } from '../custody/key-material.ts';

const INFO = 'svc-node device keys bundle v1';

export interface SealedBundle {
  /** The HPKE encapsulated key, base64url. */
  enc: string;
  ciphertext: string;
}

function info(nodeId: string, deviceId: string): Buffer {
  return Buffer.from(`${INFO}\n${nodeId}\n${deviceId}`, 'utf8');
}

/** Seals `keys` to `boxKey`; the caller wipes `keys`. */
export function sealBundle(keys: KeyMaterial, schemaVersion: number, nodeId: string, deviceId: string, boxKey: Uint8Array): SealedBundle {
  const payload = encodePayload({ schemaVersion, nodeId, keys, tables: [] });
  try {
    const bound = info(nodeId, deviceId);
    const { enc, context } = setupBaseSender(HPKE_X25519_SHA256_AES256GCM, boxKey, bound);
    return { enc: toBase64Url(enc), ciphertext: toBase64Url(context.seal(bound, payload)) };
  } finally {
    payload.fill(0);
  }
}

export class BundleUnreadableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleUnreadableError';
  }
}

/** Opens a bundle with this device's agreement; the caller wipes the returned `keys`. */
export function openBundle(bundle: SealedBundle, nodeId: string, deviceId: string, agreement: X25519Agreement): KitContents {
  const enc = fromBase64Url(bundle.enc);
  const ciphertext = fromBase64Url(bundle.ciphertext);
  if (enc === null || ciphertext === null || enc.length !== 32) throw new BundleUnreadableError('the keys bundle is not base64url, or its key is not 32 bytes');
  const bound = info(nodeId, deviceId);
  let payload: Buffer;
  try {
    payload = setupBaseRecipient(HPKE_X25519_SHA256_AES256GCM, enc, agreement, bound).open(bound, ciphertext);
  } catch {
    throw new BundleUnreadableError('the keys bundle does not open with this device key: it was not sealed to this device');
  }
  try {
    const contents = decodePayload(payload);
    if (contents.nodeId !== nodeId) throw new BundleUnreadableError('the keys bundle names another node than its answer');
    return contents;
  } finally {
    payload.fill(0);
  }
}
