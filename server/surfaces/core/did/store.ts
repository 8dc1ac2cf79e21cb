/**
 * The did:svc registry's two tables: `did_mappings` (each stable id's current did:key) and
 * `did_log`, the append-only identity log behind it (triggers refuse updates and deletes). The
 * only module that reads or writes them; an address joins did_mappings to follow its identity.
 */
import type { Db } from '../../../context.ts';
import type { LogEntry } from '../../../crypto/identity-log.ts';

/** A did_log row as the log is read: every column but created_at, which no verifier covers. */
export type DidLogRow = LogEntry;

const LOG_COLUMNS = 'did_aw, seq, operation, previous_did_key, new_did_key, prev_entry_hash, entry_hash, state_hash, authorized_by, signature, timestamp';

/** The whole log of a did:svc, genesis first; empty when the id is unknown. */
export function didLogEntries(db: Db, didAw: string): DidLogRow[] {
  return db.prepare(`SELECT ${LOG_COLUMNS} FROM did_log WHERE did_aw = ? ORDER BY seq`).all(didAw) as DidLogRow[];
}

export function didLogHead(db: Db, didAw: string): DidLogRow | undefined {
  return db.prepare(`SELECT ${LOG_COLUMNS} FROM did_log WHERE did_aw = ? ORDER BY seq DESC LIMIT 1`).get(didAw) as DidLogRow | undefined;
}

/** The entry hashes of the log, in order: enough to tell whether another log extends it. */
export function didLogHashes(db: Db, didAw: string): string[] {
  return db.prepare(`SELECT entry_hash FROM did_log WHERE did_aw = ? ORDER BY seq`).pluck().all(didAw) as string[];
}

export function currentDidKey(db: Db, didAw: string): string | undefined {
  return db.prepare(`SELECT current_did_key FROM did_mappings WHERE did_aw = ?`).pluck().get(didAw) as string | undefined;
}

/**
 * Appends an entry and moves the mapping to its key: a genesis entry (seq 1) creates the
 * mapping. Call it inside a transaction with the checks that made the entry acceptable.
 */
export function appendDidLogEntry(db: Db, entry: LogEntry, createdAt: string): void {
  if (entry.seq === 1) {
    db.prepare(`INSERT INTO did_mappings (did_aw, current_did_key, created_at, updated_at) VALUES (?, ?, ?, ?)`).run(
      entry.did_aw,
      entry.new_did_key,
      createdAt,
      createdAt,
    );
  } else {
    db.prepare(`UPDATE did_mappings SET current_did_key = ?, updated_at = ? WHERE did_aw = ?`).run(entry.new_did_key, createdAt, entry.did_aw);
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
    createdAt,
  );
}
