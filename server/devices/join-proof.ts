/**
 * What the two devices of a join sign and MAC. The code a person carries from one screen to the
 * other never travels itself: each side derives a link key from it, the joining device names the
 * code by the key's SHA-256 and MACs its request under the key, and the linking device MACs its
 * answer under the same key. So someone who watches the exchange, or answers in the linking
 * device's place, has nothing to join with and cannot pass for either side. Each side also signs
 * with its device key, which the other keeps as the key its later requests are checked against.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJsonBytes } from '../crypto/canonical-json.ts';
import { fromBase64Url, sha256Hex, toBase64Url } from '../crypto/encoding.ts';
import { deriveKey } from '../custody/aead.ts';
import { DEVICE_LINK_CODE, type DeviceJoinAnswer, type DeviceJoinInput } from '../../contract/node/devices.ts';

const LINK_KEY_INFO = 'svc-node device link key v1';
export const JOIN_TYPE = 'svc.device.join';
export const JOIN_ANSWER_TYPE = 'svc.device.join-answer';

/** A code as typed: spaces around it and upper case forgiven. */
export function normaliseCode(code: string): string | null {
  const normal = code.trim().toLowerCase();
  return DEVICE_LINK_CODE.test(normal) ? normal : null;
}

/** The key derived from a code: what both sides MAC under. */
export function linkKeyOf(code: string): Buffer {
  return deriveKey(Buffer.from(code, 'utf8'), LINK_KEY_INFO);
}

/** How a code is named on the wire and in the table: the SHA-256 of its key, which reveals neither. */
export function codeIdOf(linkKey: Uint8Array): string {
  return sha256Hex(linkKey);
}

export type JoinFields = Omit<DeviceJoinInput, 'proof' | 'signature'>;
export type AnswerFields = Omit<DeviceJoinAnswer, 'proof' | 'signature'>;

/** The bytes a join's proof and signature cover. */
export function joinBytes(fields: JoinFields): Buffer {
  const { code_id, name, sign_key, box_key, url, timestamp } = fields;
  return canonicalJsonBytes({ type: JOIN_TYPE, code_id, name, sign_key, box_key, url, timestamp });
}

/** The bytes an answer's proof and signature cover: the answer, and the join it answers (by the joining device's key). */
export function answerBytes(fields: AnswerFields, joinerSignKey: string): Buffer {
  const { device_id, node_id, linker, bundle, snapshot } = fields;
  return canonicalJsonBytes({ type: JOIN_ANSWER_TYPE, device_id, node_id, linker, bundle, snapshot, joiner_sign_key: joinerSignKey });
}

export function mac(linkKey: Uint8Array, bytes: Uint8Array): string {
  return toBase64Url(createHmac('sha256', linkKey).update(bytes).digest());
}

/** Whether `proof` is the MAC of `bytes` under `linkKey`, compared in constant time. */
export function macMatches(linkKey: Uint8Array, bytes: Uint8Array, proof: string): boolean {
  const given = fromBase64Url(proof);
  const expected = createHmac('sha256', linkKey).update(bytes).digest();
  return given !== null && given.length === expected.length && timingSafeEqual(given, expected);
}
