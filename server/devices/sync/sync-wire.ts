/**
 * What travels between two devices as they sync: the changes, sealed (AES-256-GCM) under a key
 * every device of the node derives from the backup key the join's sealed bundle carried, bound to
 * the sending and receiving device so a batch cannot be turned back or sent on to a third; and,
 * when the two hold different keys, the keys themselves, sealed to the receiving device's own key
 * as at the join (keys-bundle.ts). Whoever carries the requests (a LAN, a tunnel's host) sees
 * neither.
 */
import { z } from 'zod';
import { fromBase64Url, toBase64Url } from '../../crypto/encoding.ts';
import { deriveKey, open, seal } from '../../custody/aead.ts';
import type { DeviceOp } from './op-log-store.ts';

const SYNC_KEY_INFO = 'svc-node device sync v1';

export function syncKeyOf(backupKey: Uint8Array): Buffer {
  return deriveKey(backupKey, SYNC_KEY_INFO);
}

const aad = (from: string, to: string): Buffer => Buffer.from(`${SYNC_KEY_INFO}\n${from}\n${to}`, 'utf8');

export function sealOps(key: Uint8Array, from: string, to: string, ops: readonly DeviceOp[]): string {
  return toBase64Url(seal(key, Buffer.from(JSON.stringify(ops), 'utf8'), aad(from, to)));
}

const Op = z.strictObject({
  origin: z.string().min(1).max(64),
  seq: z.int().min(1),
  lamport: z.int().min(0),
  tbl: z.string().min(1).max(64),
  op: z.enum(['upsert', 'delete']),
  key: z.string().max(4096),
  row: z
    .string()
    .max(2 * 1024 * 1024)
    .nullable(),
  at: z.string().max(64),
});

export class SyncRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncRefusedError';
  }
}

/** The changes in a sealed batch from `from` to `to`; a SyncRefusedError when it does not open or is not changes. */
export function openOps(key: Uint8Array, from: string, to: string, sealed: string): DeviceOp[] {
  const box = fromBase64Url(sealed);
  const plaintext = box === null ? null : open(key, box, aad(from, to));
  if (plaintext === null) throw new SyncRefusedError('the changes do not open under this node’s sync key for these two devices');
  let parsed: unknown;
  try {
    parsed = JSON.parse(plaintext.toString('utf8'));
  } catch {
    throw new SyncRefusedError('the changes are not JSON');
  }
  const result = z.array(Op).max(10_000).safeParse(parsed);
  if (!result.success) throw new SyncRefusedError('the changes are not in the shape a device sends');
  return result.data;
}
