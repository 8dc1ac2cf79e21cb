/**
 * The did:svc registry: stable id → current did:key, backed by the append-only identity log.
 * Every write goes through `append`, which checks the entry against the stored head, so
 * self-custodial clients (POST/PUT /v1/did) and identities held in this node's custody obey one
 * rule set.
 */
import type { NodeContext } from '../../../context.ts';
import { publicKeyFromDidKey } from '../../../crypto/did-key.ts';
import { toBase64Unpadded } from '../../../crypto/encoding.ts';
import {
  buildRegisterPayload,
  buildRotatePayload,
  entryHash,
  signaturePayloadBytes,
  stateHash,
  verifyEntrySignature,
  verifyLog,
  type LogEntry,
  type LogEntryPayload,
} from '../../../crypto/identity-log.ts';
import { DID_METHOD, stableIdFromPublicKey } from '../../../crypto/stable-id.ts';
import { isSecondPrecisionTimestamp, parseRfc3339 } from '../../../crypto/timestamp.ts';
import { signingTimestamp } from '../../../clock.ts';
import { checkRequestTimestamp } from '../../../auth/timestamp.ts';
import { conflict, invalid, notFound, unauthorized } from '../../../errors.ts';
import { appendDidLogEntry, currentDidKey, didLogEntries, didLogHashes, didLogHead } from './store.ts';
import type { DidRegistered, HeldDidKey } from '../../../../contract/core/did.ts';

export class DidRegistry {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  log(didAw: string): LogEntry[] {
    const rows = didLogEntries(this.#ctx.db, didAw);
    if (rows.length === 0) throw notFound('SVC_ERR_DID_NOT_FOUND', 'did:svc not found');
    return rows;
  }

  head(didAw: string): LogEntry | null {
    return didLogHead(this.#ctx.db, didAw) ?? null;
  }

  key(didAw: string): HeldDidKey {
    const head = this.head(didAw);
    if (!head) throw notFound('SVC_ERR_DID_NOT_FOUND', 'did:svc not found');
    return { did_aw: didAw, current_did_key: head.new_did_key, log_head: head };
  }

  currentKey(didAw: string): string | null {
    return currentDidKey(this.#ctx.db, didAw) ?? null;
  }

  /**
   * Registers a did:svc from a client-signed genesis entry. The entry is checked (timestamp,
   * state hash, proof) before anything else, so an unsigned request never succeeds. Idempotent
   * while the id is still bound to that key; once it has rotated away, the genesis key asking
   * again is a conflict.
   */
  register(payload: LogEntryPayload, signature: string): DidRegistered {
    const genesisKey = publicKeyFromDidKey(payload.new_did_key);
    if (!genesisKey) throw invalid('SVC_ERR_DID_MALFORMED', 'new_did_key is not an Ed25519 did:key');
    if (payload.seq !== 1 || payload.previous_did_key !== null || payload.prev_entry_hash !== null) {
      throw invalid('SVC_ERR_DID_ENTRY_INVALID', 'A registration is the genesis entry: seq 1, previous_did_key and prev_entry_hash null');
    }
    if (payload.operation !== 'register_did') throw invalid('SVC_ERR_DID_ENTRY_INVALID', 'operation must be register_did');
    if (payload.authorized_by !== payload.new_did_key) throw invalid('SVC_ERR_DID_ENTRY_INVALID', 'authorized_by must equal new_did_key at genesis');
    if (payload.did_aw !== stableIdFromPublicKey(genesisKey, DID_METHOD)) {
      throw invalid('SVC_ERR_DID_ENTRY_INVALID', 'did_aw is not derived from new_did_key');
    }
    this.#checkEntry(payload, signature, null);
    const existing = this.currentKey(payload.did_aw);
    if (existing !== null) {
      if (existing === payload.new_did_key) return { registered: true, did_aw: payload.did_aw, current_did_key: existing };
      throw conflict('SVC_ERR_DID_TAKEN', 'did_aw already registered to another key');
    }
    this.#insert(payload, signature);
    return { registered: true, did_aw: payload.did_aw, current_did_key: payload.new_did_key };
  }

  /** Appends a client-signed rotate_key entry (PUT /v1/did/{did_aw}). */
  rotate(payload: LogEntryPayload, signature: string): LogEntry {
    const head = this.head(payload.did_aw);
    if (!head) throw notFound('SVC_ERR_DID_NOT_FOUND', 'did:svc not found');
    if (payload.operation !== 'rotate_key') throw invalid('SVC_ERR_DID_ENTRY_INVALID', 'operation must be rotate_key');
    if (!publicKeyFromDidKey(payload.new_did_key)) throw invalid('SVC_ERR_DID_MALFORMED', 'new_did_key is not an Ed25519 did:key');
    if (payload.new_did_key === head.new_did_key) throw invalid('SVC_ERR_DID_ENTRY_INVALID', 'new_did_key is already the current key');
    if (payload.authorized_by !== head.new_did_key || payload.previous_did_key !== head.new_did_key) {
      throw unauthorized('SVC_ERR_DID_ROTATION_UNAUTHORIZED', 'authorized_by and previous_did_key must be the current key', 'DIDKey');
    }
    if (payload.seq !== head.seq + 1) throw conflict('SVC_ERR_DID_LOG_STALE', 'seq mismatch');
    if (payload.prev_entry_hash !== head.entry_hash) throw conflict('SVC_ERR_DID_LOG_STALE', 'prev_entry_hash mismatch');
    this.#checkEntry(payload, signature, head);
    return this.#insert(payload, signature);
  }

  /**
   * Takes in a log from elsewhere (an identity backup): the whole chain must verify, and a log
   * already known here must be a prefix of it. Returns the current key.
   */
  importLog(entries: LogEntry[]): string {
    const didAw = entries[0]?.did_aw;
    if (didAw === undefined) throw invalid('SVC_ERR_DID_LOG_INVALID', 'The identity log is empty');
    const verified = verifyLog(entries, { method: DID_METHOD, didAw });
    if (!verified.ok) throw invalid('SVC_ERR_DID_LOG_INVALID', `The identity log does not verify: ${verified.error}`);
    const known = didLogHashes(this.#ctx.db, didAw);
    if (known.length > entries.length || known.some((hash, i) => hash !== entries[i]?.entry_hash)) {
      throw conflict('SVC_ERR_DID_LOG_FORKED', 'This node knows a different history for that did:svc');
    }
    for (const { entry_hash: _hash, signature, ...payload } of entries.slice(known.length)) this.#insert(payload, signature);
    return verified.currentDidKey;
  }

  /** Registers an identity whose genesis key is held in this node's custody. */
  registerCustodial(keyId: string): LogEntry {
    const { custody } = this.#ctx;
    const didKey = custody.didKey(keyId);
    const didAw = stableIdFromPublicKey(custody.publicKey(keyId), DID_METHOD);
    const payload = buildRegisterPayload({ didAw, didKey, timestamp: signingTimestamp(this.#ctx.clock) });
    return this.#insert(payload, this.#sign(keyId, payload));
  }

  /** Rotates a custody-held identity: the retiring key signs the entry naming its successor. */
  rotateCustodial(didAw: string, oldKeyId: string, newKeyId: string): LogEntry {
    const head = this.head(didAw);
    if (!head) throw notFound('SVC_ERR_DID_NOT_FOUND', 'did:svc not found');
    const newDidKey = this.#ctx.custody.didKey(newKeyId);
    const payload = buildRotatePayload({ previous: head, newDidKey, timestamp: signingTimestamp(this.#ctx.clock) });
    return this.#insert(payload, this.#sign(oldKeyId, payload));
  }

  #sign(keyId: string, payload: LogEntryPayload): string {
    return toBase64Unpadded(this.#ctx.custody.sign(keyId, signaturePayloadBytes(payload)));
  }

  #checkEntry(payload: LogEntryPayload, signature: string, head: LogEntry | null): void {
    checkRequestTimestamp(payload.timestamp, 'timestamp', this.#ctx.clock.now(), 'DIDKey');
    // Log verifiers (ours and upstream's) refuse fractional seconds: never store what they would refuse.
    if (!isSecondPrecisionTimestamp(payload.timestamp)) throw invalid('SVC_ERR_DID_ENTRY_INVALID', 'timestamp must be RFC 3339 at second precision');
    if (head && (parseRfc3339(payload.timestamp) ?? 0) < (parseRfc3339(head.timestamp) ?? 0)) {
      throw invalid('SVC_ERR_DID_ENTRY_INVALID', 'timestamp is older than the current log head');
    }
    if (payload.state_hash !== stateHash(payload.did_aw, payload.new_did_key)) throw invalid('SVC_ERR_DID_ENTRY_INVALID', 'state_hash mismatch');
    if (!verifyEntrySignature(payload, signature)) throw unauthorized('SVC_ERR_SIGNATURE_INVALID', 'invalid proof', 'DIDKey');
  }

  #insert(payload: LogEntryPayload, signature: string): LogEntry {
    const entry: LogEntry = { ...payload, entry_hash: entryHash(payload), signature };
    const db = this.#ctx.db;
    db.transaction(() => appendDidLogEntry(db, entry, this.#ctx.clock.now().toISOString()))();
    return entry;
  }
}
