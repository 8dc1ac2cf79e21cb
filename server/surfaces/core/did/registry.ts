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
import type { DidKey, DidRegistered } from '../../../../contract/core/did.ts';

const LOG_COLUMNS =
  'did_aw, seq, operation, previous_did_key, new_did_key, prev_entry_hash, entry_hash, state_hash, authorized_by, signature, timestamp';

export class DidRegistry {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  log(didAw: string): LogEntry[] {
    const rows = this.#ctx.db.prepare(`SELECT ${LOG_COLUMNS} FROM did_log WHERE did_aw = ? ORDER BY seq`).all(didAw) as LogEntry[];
    if (rows.length === 0) throw notFound('did:svc not found');
    return rows;
  }

  head(didAw: string): LogEntry | null {
    return (
      (this.#ctx.db
        .prepare(`SELECT ${LOG_COLUMNS} FROM did_log WHERE did_aw = ? ORDER BY seq DESC LIMIT 1`)
        .get(didAw) as LogEntry | undefined) ?? null
    );
  }

  key(didAw: string): DidKey {
    const head = this.head(didAw);
    if (!head) throw notFound('did:svc not found');
    return { did_aw: didAw, current_did_key: head.new_did_key, log_head: head };
  }

  currentKey(didAw: string): string | null {
    const row = this.#ctx.db.prepare(`SELECT current_did_key FROM did_mappings WHERE did_aw = ?`).get(didAw) as
      | { current_did_key: string }
      | undefined;
    return row?.current_did_key ?? null;
  }

  /**
   * Registers a did:svc from a client-signed genesis entry. The entry is checked (timestamp,
   * state hash, proof) before anything else, so an unsigned request never succeeds. Idempotent
   * while the id is still bound to that key; once it has rotated away, the genesis key asking
   * again is a conflict.
   */
  register(payload: LogEntryPayload, signature: string): DidRegistered {
    const genesisKey = publicKeyFromDidKey(payload.new_did_key);
    if (!genesisKey) throw invalid('new_did_key is not an Ed25519 did:key');
    if (payload.seq !== 1 || payload.previous_did_key !== null || payload.prev_entry_hash !== null) {
      throw invalid('A registration is the genesis entry: seq 1, previous_did_key and prev_entry_hash null');
    }
    if (payload.operation !== 'register_did') throw invalid('operation must be register_did');
    if (payload.authorized_by !== payload.new_did_key) throw invalid('authorized_by must equal new_did_key at genesis');
    if (payload.did_aw !== stableIdFromPublicKey(genesisKey, DID_METHOD)) {
      throw invalid('did_aw is not derived from new_did_key');
    }
    this.#checkEntry(payload, signature, null);
    const existing = this.currentKey(payload.did_aw);
    if (existing !== null) {
      if (existing === payload.new_did_key) return { registered: true, did_aw: payload.did_aw, current_did_key: existing };
      throw conflict('did_aw already registered to another key');
    }
    this.#insert(payload, signature);
    return { registered: true, did_aw: payload.did_aw, current_did_key: payload.new_did_key };
  }

  /** Appends a client-signed rotate_key entry (PUT /v1/did/{did_aw}). */
  rotate(payload: LogEntryPayload, signature: string): LogEntry {
    const head = this.head(payload.did_aw);
    if (!head) throw notFound('did:svc not found');
    if (payload.operation !== 'rotate_key') throw invalid('operation must be rotate_key');
    if (!publicKeyFromDidKey(payload.new_did_key)) throw invalid('new_did_key is not an Ed25519 did:key');
    if (payload.new_did_key === head.new_did_key) throw invalid('new_did_key is already the current key');
    if (payload.authorized_by !== head.new_did_key || payload.previous_did_key !== head.new_did_key) {
      throw unauthorized('authorized_by and previous_did_key must be the current key', 'DIDKey');
    }
    if (payload.seq !== head.seq + 1) throw conflict('seq mismatch');
    if (payload.prev_entry_hash !== head.entry_hash) throw conflict('prev_entry_hash mismatch');
    this.#checkEntry(payload, signature, head);
    return this.#insert(payload, signature);
  }

  /**
   * Takes in a log from elsewhere (an identity backup): the whole chain must verify, and a log
   * already known here must be a prefix of it. Returns the current key.
   */
  importLog(entries: LogEntry[]): string {
    const didAw = entries[0]?.did_aw;
    if (didAw === undefined) throw invalid('The identity log is empty');
    const verified = verifyLog(entries, { method: DID_METHOD, didAw });
    if (!verified.ok) throw invalid(`The identity log does not verify: ${verified.error}`);
    const known = this.#ctx.db.prepare(`SELECT entry_hash FROM did_log WHERE did_aw = ? ORDER BY seq`).all(didAw) as { entry_hash: string }[];
    if (known.length > entries.length || known.some((row, i) => row.entry_hash !== entries[i]?.entry_hash)) {
      throw conflict('This node knows a different history for that did:svc');
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
    if (!head) throw notFound('did:svc not found');
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
    if (!isSecondPrecisionTimestamp(payload.timestamp)) throw invalid('timestamp must be RFC 3339 at second precision');
    if (head && (parseRfc3339(payload.timestamp) ?? 0) < (parseRfc3339(head.timestamp) ?? 0)) {
      throw invalid('timestamp is older than the current log head');
    }
    if (payload.state_hash !== stateHash(payload.did_aw, payload.new_did_key)) throw invalid('state_hash mismatch');
    if (!verifyEntrySignature(payload, signature)) throw unauthorized('invalid proof', 'DIDKey');
  }

  #insert(payload: LogEntryPayload, signature: string): LogEntry {
    const now = this.#ctx.clock.now().toISOString();
    const entry: LogEntry = { ...payload, entry_hash: entryHash(payload), signature };
    const db = this.#ctx.db;
    db.transaction(() => {
      if (payload.seq === 1) {
        db.prepare(`INSERT INTO did_mappings (did_aw, current_did_key, created_at, updated_at) VALUES (?, ?, ?, ?)`).run(
          payload.did_aw,
          payload.new_did_key,
          now,
          now,
        );
      } else {
        db.prepare(`UPDATE did_mappings SET current_did_key = ?, updated_at = ? WHERE did_aw = ?`).run(
          payload.new_did_key,
          now,
          payload.did_aw,
        );
      }
      db.prepare(`INSERT INTO did_log (${LOG_COLUMNS}, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
        entry.did_aw,
        entry.seq,
        entry.operation,
        entry.previous_did_key,
        entry.new_did_key,
        entry.prev_entry_hash,
        entry.entry_hash,
        entry.state_hash,
        entry.authorized_by,
        entry.signature,
        entry.timestamp,
        now,
      );
    })();
    return entry;
  }
}
