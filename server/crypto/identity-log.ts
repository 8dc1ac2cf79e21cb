/**
 * Identity audit log entries, as upstream's registry writes them and its clients verify log heads
 * (docs/adr/0002-did-svc-identity-log-and-namespace-records.md).
 *
 * Every entry payload carries all 9 keys (absent values as null) and is signed over its canonical
 * bytes by `authorized_by`: the new key at genesis, the retiring key on rotation. This module builds
 * payloads and verifies logs and log heads; signing happens in custody.
 */
import { canonicalJsonBytes } from './canonical-json.ts';
import { isDidKey, publicKeyFromDidKey } from './did-key.ts';
import { verifyBytes } from './ed25519.ts';
import { fromBase64Unpadded, sha256Hex } from './encoding.ts';
import { DID_METHOD, isStableId, stableIdFromDidKey } from './stable-id.ts';
import { isSecondPrecisionTimestamp } from './timestamp.ts';

export type LogOperation = 'register_did' | 'rotate_key';

export interface LogEntryPayload {
  authorized_by: string;
  did_aw: string;
  new_did_key: string;
  operation: LogOperation;
  prev_entry_hash: string | null;
  previous_did_key: string | null;
  seq: number;
  state_hash: string;
  timestamp: string;
}

export interface LogEntry extends LogEntryPayload {
  entry_hash: string;
  signature: string;
}

/**
 * An entry as received from elsewhere: any operation string (legacy genesis says 'create'), and
 * `did_aw` may be absent (a `/key` log head omits it).
 */
export interface LogHead {
  seq: number;
  operation: string;
  previous_did_key: string | null;
  new_did_key: string;
  prev_entry_hash: string | null;
  entry_hash: string;
  state_hash: string;
  authorized_by: string;
  signature: string;
  timestamp: string;
  did_aw?: string;
}

/** The last verified head a client remembers for a stable id (§2.3 step 7). */
export interface CachedLogHead {
  seq: number;
  entry_hash: string;
  current_did_key: string;
}

export type LogVerification = { ok: true; currentDidKey: string } | { ok: false; error: string };
export type LogHeadOutcome = 'OK_VERIFIED' | 'OK_DEGRADED' | { hardError: string };

const GENESIS_OPERATIONS = new Set(['register_did', 'create']);
const LOWER_HEX_256 = /^[0-9a-f]{64}$/;

export function stateHash(didAw: string, currentDidKey: string): string {
  return sha256Hex(canonicalJsonBytes({ current_did_key: currentDidKey, did_aw: didAw }));
}

export function signaturePayloadBytes(payload: LogEntryPayload): Buffer {
  return canonicalJsonBytes(payloadOf(payload));
}

export function entryHash(payload: LogEntryPayload): string {
  return sha256Hex(signaturePayloadBytes(payload));
}

/** Exactly the 9 signed keys, so stray fields (entry_hash, signature) never leak into the bytes. */
function payloadOf(p: LogEntryPayload): LogEntryPayload {
  return {
    authorized_by: p.authorized_by,
    did_aw: p.did_aw,
    new_did_key: p.new_did_key,
    operation: p.operation,
    prev_entry_hash: p.prev_entry_hash,
    previous_did_key: p.previous_did_key,
    seq: p.seq,
    state_hash: p.state_hash,
    timestamp: p.timestamp,
  };
}

function methodOf(didAw: string): string {
  const method = /^did:([a-z0-9]+):/.exec(didAw)?.[1];
  if (!method || !isStableId(didAw, method)) throw new RangeError(`not a stable id: ${didAw}`);
  return method;
}

function requireTimestamp(timestamp: string): void {
  if (!isSecondPrecisionTimestamp(timestamp)) throw new RangeError(`timestamp must be RFC 3339 seconds: ${timestamp}`);
}

export function buildRegisterPayload(args: { didAw: string; didKey: string; timestamp: string }): LogEntryPayload {
  const { didAw, didKey, timestamp } = args;
  if (stableIdFromDidKey(didKey, methodOf(didAw)) !== didAw) throw new RangeError('did_aw is not derived from the genesis key');
  requireTimestamp(timestamp);
  return {
    authorized_by: didKey,
    did_aw: didAw,
    new_did_key: didKey,
    operation: 'register_did',
    prev_entry_hash: null,
    previous_did_key: null,
    seq: 1,
    state_hash: stateHash(didAw, didKey),
    timestamp,
  };
}

export function buildRotatePayload(args: { previous: LogEntry; newDidKey: string; timestamp: string }): LogEntryPayload {
  const { previous, newDidKey, timestamp } = args;
  if (!isDidKey(newDidKey)) throw new RangeError('new key is not an Ed25519 did:key');
  if (newDidKey === previous.new_did_key) throw new RangeError('new key equals the current key');
  requireTimestamp(timestamp);
  return {
    authorized_by: previous.new_did_key,
    did_aw: previous.did_aw,
    new_did_key: newDidKey,
    operation: 'rotate_key',
    prev_entry_hash: previous.entry_hash,
    previous_did_key: previous.new_did_key,
    seq: previous.seq + 1,
    state_hash: stateHash(previous.did_aw, newDidKey),
    timestamp,
  };
}

/** Joins a payload with the signature custody produced over `signaturePayloadBytes(payload)`. */
export function assembleLogEntry(payload: LogEntryPayload, signatureB64: string): LogEntry {
  return { ...payloadOf(payload), entry_hash: entryHash(payload), signature: signatureB64 };
}

export function verifyEntrySignature(payload: LogEntryPayload, signatureB64: string): boolean {
  const publicKey = publicKeyFromDidKey(payload.authorized_by);
  const signature = typeof signatureB64 === 'string' ? fromBase64Unpadded(signatureB64) : null;
  if (!publicKey || !signature) return false;
  return verifyBytes(publicKey, signaturePayloadBytes(payload), signature);
}

/** Shape, hash and signature checks one entry needs on its own; returns an error or null. */
function checkEntry(didAw: string, e: LogHead): string | null {
  if (!Number.isSafeInteger(e.seq) || e.seq < 1) return 'seq must be an integer >= 1';
  if (!isDidKey(e.new_did_key)) return 'new_did_key is not an Ed25519 did:key';
  if (!isDidKey(e.authorized_by)) return 'authorized_by is not an Ed25519 did:key';
  if (e.did_aw !== undefined && e.did_aw !== didAw) return 'did_aw mismatch';
  if (e.seq === 1) {
    if (!GENESIS_OPERATIONS.has(e.operation)) return 'genesis must be register_did';
    if (e.prev_entry_hash !== null) return 'genesis prev_entry_hash must be null';
    if (e.previous_did_key !== null) return 'genesis previous_did_key must be null';
    if (e.authorized_by !== e.new_did_key) return 'genesis must be authorized by its own key';
  } else {
    if (e.operation !== 'rotate_key') return 'seq > 1 must be rotate_key';
    if (typeof e.prev_entry_hash !== 'string' || !LOWER_HEX_256.test(e.prev_entry_hash)) return 'prev_entry_hash must be lowercase hex';
    if (!isDidKey(e.previous_did_key)) return 'previous_did_key is not an Ed25519 did:key';
    if (e.authorized_by !== e.previous_did_key) return 'rotation must be authorized by the previous key';
  }
  if (!isSecondPrecisionTimestamp(e.timestamp)) return 'timestamp must be RFC 3339 with second precision';
  if (e.state_hash !== stateHash(didAw, e.new_did_key)) return 'state_hash mismatch';
  // The operation string is signed as received, so a legacy 'create' genesis still hashes right.
  const payload = { ...e, did_aw: didAw } as LogEntryPayload;
  if (e.entry_hash !== entryHash(payload)) return 'entry_hash mismatch';
  if (!verifyEntrySignature(payload, e.signature)) return 'invalid signature';
  return null;
}

/** Verifies a whole log from genesis; `didAw` is required when entries omit it. */
export function verifyLog(entries: readonly LogHead[], options: { method?: string; didAw?: string } = {}): LogVerification {
  const method = options.method ?? DID_METHOD;
  const genesis = entries[0];
  if (!genesis) return { ok: false, error: 'empty log' };
  const didAw = options.didAw ?? genesis.did_aw;
  if (!isStableId(didAw, method)) return { ok: false, error: `did_aw is not a did:${method} stable id` };
  let previous: LogHead | undefined;
  for (const [index, entry] of entries.entries()) {
    if (entry.seq !== index + 1) return { ok: false, error: `entry ${index + 1}: seq ${String(entry.seq)} out of order` };
    const error = checkEntry(didAw, entry);
    if (error) return { ok: false, error: `seq ${entry.seq}: ${error}` };
    if (!previous && stableIdFromDidKey(entry.new_did_key, method) !== didAw) {
      return { ok: false, error: 'did_aw is not derived from the genesis key' };
    }
    if (previous) {
      if (entry.previous_did_key !== previous.new_did_key) return { ok: false, error: `seq ${entry.seq}: broken key continuity` };
      if (entry.prev_entry_hash !== previous.entry_hash) return { ok: false, error: `seq ${entry.seq}: prev_entry_hash mismatch` };
    }
    previous = entry;
  }
  return { ok: true, currentDidKey: (previous ?? genesis).new_did_key };
}

/**
 * Client-side check of a registry's `{did_aw, current_did_key, log_head}` answer (§2.3). A head
 * that cannot be anchored (no cache, or a gap after the cache) is only OK_DEGRADED; update the
 * cache only on OK_VERIFIED.
 */
export function verifyLogHead(
  args: { didAw: string; currentDidKey: string; logHead?: LogHead | null; cached?: CachedLogHead | null },
  method: string = DID_METHOD,
): LogHeadOutcome {
  const { didAw, currentDidKey, logHead: head, cached } = args;
  if (!isStableId(didAw, method)) return { hardError: `did_aw is not a did:${method} stable id` };
  if (!isDidKey(currentDidKey)) return { hardError: 'current_did_key is not an Ed25519 did:key' };
  if (!head) return 'OK_DEGRADED';
  if (head.new_did_key !== currentDidKey) return { hardError: 'log_head new_did_key mismatch' };
  if (head.seq === 1 && stableIdFromDidKey(head.new_did_key, method) !== didAw) {
    return { hardError: 'did_aw is not derived from the genesis key' };
  }
  const error = checkEntry(didAw, head);
  if (error) return { hardError: error };

  if (!cached) return head.seq === 1 ? 'OK_VERIFIED' : 'OK_DEGRADED';
  if (head.seq < cached.seq) return { hardError: 'log_head seq regression' };
  if (head.seq === cached.seq) return head.entry_hash === cached.entry_hash ? 'OK_VERIFIED' : { hardError: 'log_head split view' };
  if (head.seq > cached.seq + 1) return 'OK_DEGRADED';
  if (head.prev_entry_hash !== cached.entry_hash) return { hardError: 'log_head broken chain' };
  if (head.previous_did_key !== cached.current_did_key) return { hardError: 'log_head previous key is not the cached current key' };
  return 'OK_VERIFIED';
}
