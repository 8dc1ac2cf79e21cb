/**
 * The did:svc store on a real encrypted database: a genesis entry creates the mapping and later
 * entries move it, the log reads back in order without created_at, and the log is append-only.
 */
import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '../../../../test/support/store-database.ts';
import type { LogEntry } from '../../../crypto/identity-log.ts';
import { appendDidLogEntry, currentDidKey, didLogEntries, didLogHashes, didLogHead } from './store.ts';

const db = useStoreDatabase();

function entry(seq: number, didAw = 'did:svc:store-test'): LogEntry {
  return {
    did_aw: didAw,
    seq,
    operation: seq === 1 ? 'register_did' : 'rotate_key',
    previous_did_key: seq === 1 ? null : `did:key:z${seq - 1}`,
    new_did_key: `did:key:z${seq}`,
    prev_entry_hash: seq === 1 ? null : `hash-${didAw}-${seq - 1}`,
    entry_hash: `hash-${didAw}-${seq}`,
    state_hash: `state-${seq}`,
    authorized_by: `did:key:z${seq === 1 ? 1 : seq - 1}`,
    signature: `sig-${seq}`,
    timestamp: `2026-01-0${seq}T00:00:00Z`,
  };
}

describe('the did:svc store', () => {
  it('has nothing for an unknown id', () => {
    expect(didLogEntries(db(), 'did:svc:unknown')).toEqual([]);
    expect(didLogHead(db(), 'did:svc:unknown')).toBeUndefined();
    expect(currentDidKey(db(), 'did:svc:unknown')).toBeUndefined();
  });

  it('maps the id to the key of its newest entry and reads the log back genesis first', () => {
    for (const seq of [1, 2, 3]) appendDidLogEntry(db(), entry(seq), `2026-01-0${seq}T00:00:00.000Z`);
    expect(currentDidKey(db(), 'did:svc:store-test')).toBe('did:key:z3');
    expect(didLogEntries(db(), 'did:svc:store-test')).toEqual([entry(1), entry(2), entry(3)]);
    expect(didLogHead(db(), 'did:svc:store-test')).toEqual(entry(3));
    expect(didLogHashes(db(), 'did:svc:store-test')).toEqual(['hash-did:svc:store-test-1', 'hash-did:svc:store-test-2', 'hash-did:svc:store-test-3']);
  });

  it('never rewrites the log', () => {
    appendDidLogEntry(db(), entry(1, 'did:svc:frozen'), '2026-01-01T00:00:00.000Z');
    expect(() => db().prepare(`UPDATE did_log SET signature = 'x' WHERE did_aw = 'did:svc:frozen'`).run()).toThrow(/append-only/);
    expect(() => db().prepare(`DELETE FROM did_log WHERE did_aw = 'did:svc:frozen'`).run()).toThrow(/append-only/);
  });
});
