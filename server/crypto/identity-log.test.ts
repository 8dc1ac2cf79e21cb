import { describe, it, expect } from 'vitest';
import type { KeyObject } from 'node:crypto';
import { didKeyFromPublicKey } from './did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from './ed25519.ts';
import { toBase64Padded, toBase64Unpadded } from './encoding.ts';
import { stableIdFromPublicKey } from './stable-id.ts';
import {
  assembleLogEntry,
  buildRegisterPayload,
  buildRotatePayload,
  entryHash,
  signaturePayloadBytes,
  stateHash,
  verifyEntrySignature,
  verifyLog,
  verifyLogHead,
  type LogEntry,
  type LogEntryPayload,
  type LogHead,
} from './identity-log.ts';

function key(byte: number): { priv: KeyObject; did: string; pub: Buffer } {
  const priv = privateKeyFromSeed(new Uint8Array(32).fill(byte));
  const pub = rawPublicKey(priv);
  return { priv, did: didKeyFromPublicKey(pub), pub };
}

const A = key(1);
const B = key(2);
const C = key(3);
const X = key(9);
const DID = stableIdFromPublicKey(A.pub, 'svc');

function seal(payload: LogEntryPayload, priv: KeyObject): LogEntry {
  return assembleLogEntry(payload, toBase64Unpadded(signBytes(priv, signaturePayloadBytes(payload))));
}

const genesis = seal(buildRegisterPayload({ didAw: DID, didKey: A.did, timestamp: '2026-05-01T10:00:00Z' }), A.priv);
const second = seal(buildRotatePayload({ previous: genesis, newDidKey: B.did, timestamp: '2026-05-01T11:00:00Z' }), A.priv);
const third = seal(buildRotatePayload({ previous: second, newDidKey: C.did, timestamp: '2026-05-01T12:00:00+02:00' }), B.priv);
const LOG = [genesis, second, third];

function expectError(result: ReturnType<typeof verifyLog>, fragment: string): void {
  expect(result.ok).toBe(false);
  if (!result.ok) expect(result.error).toContain(fragment);
}

describe('payload builders', () => {
  it('builds a genesis entry authorised by its own key', () => {
    expect(genesis).toMatchObject({
      authorized_by: A.did,
      did_aw: DID,
      new_did_key: A.did,
      operation: 'register_did',
      prev_entry_hash: null,
      previous_did_key: null,
      seq: 1,
      state_hash: stateHash(DID, A.did),
    });
    expect(genesis.entry_hash).toBe(entryHash(genesis));
    expect(genesis.entry_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('chains a rotation to the previous entry, signed by the retiring key', () => {
    expect(second).toMatchObject({
      authorized_by: A.did,
      previous_did_key: A.did,
      new_did_key: B.did,
      operation: 'rotate_key',
      prev_entry_hash: genesis.entry_hash,
      seq: 2,
      state_hash: stateHash(DID, B.did),
    });
  });

  it('signs exactly the 9 payload keys', () => {
    const text = signaturePayloadBytes(second).toString('utf8');
    expect(Object.keys(JSON.parse(text))).toEqual([
      'authorized_by',
      'did_aw',
      'new_did_key',
      'operation',
      'prev_entry_hash',
      'previous_did_key',
      'seq',
      'state_hash',
      'timestamp',
    ]);
    expect(text).toContain('"prev_entry_hash":"');
    expect(signaturePayloadBytes(genesis).toString('utf8')).toContain('"prev_entry_hash":null,"previous_did_key":null,"seq":1');
  });

  it('refuses inconsistent input', () => {
    expect(() => buildRegisterPayload({ didAw: stableIdFromPublicKey(B.pub), didKey: A.did, timestamp: '2026-05-01T10:00:00Z' })).toThrow(/derived/);
    expect(() => buildRegisterPayload({ didAw: DID, didKey: A.did, timestamp: '2026-05-01T10:00:00.5Z' })).toThrow(/timestamp/);
    expect(() => buildRotatePayload({ previous: genesis, newDidKey: A.did, timestamp: '2026-05-01T10:00:00Z' })).toThrow(/equals/);
    expect(() => buildRotatePayload({ previous: genesis, newDidKey: 'did:key:zBad', timestamp: '2026-05-01T10:00:00Z' })).toThrow(/did:key/);
  });
});

describe('verifyEntrySignature', () => {
  it('accepts the signer and refuses tampering', () => {
    expect(verifyEntrySignature(second, second.signature)).toBe(true);
    expect(verifyEntrySignature({ ...second, timestamp: '2026-05-01T11:00:01Z' }, second.signature)).toBe(false);
    expect(verifyEntrySignature(second, genesis.signature)).toBe(false);
  });

  it('refuses padded and url-safe base64', () => {
    const bytes = signBytes(A.priv, signaturePayloadBytes(second));
    expect(toBase64Padded(bytes)).toMatch(/==$/);
    expect(verifyEntrySignature(second, toBase64Padded(bytes))).toBe(false);
    const entry = LOG.find((e) => /[+/]/.test(e.signature));
    if (!entry) throw new Error('fixture signatures lack + and /');
    expect(verifyEntrySignature(entry, entry.signature.replace(/\+/g, '-').replace(/\//g, '_'))).toBe(false);
  });
});

describe('verifyLog', () => {
  it('accepts a three-entry log and reports the current key', () => {
    expect(verifyLog(LOG, { method: 'svc' })).toEqual({ ok: true, currentDidKey: C.did });
    expect(verifyLog([genesis], {})).toEqual({ ok: true, currentDidKey: A.did });
  });

  it('accepts entries without did_aw when the caller names it', () => {
    const bare = LOG.map(({ did_aw: _drop, ...rest }) => rest);
    expect(verifyLog(bare, { didAw: DID })).toEqual({ ok: true, currentDidKey: C.did });
    expect(verifyLog(bare, {}).ok).toBe(false);
  });

  it('accepts a legacy create genesis', () => {
    const legacy = seal({ ...genesis, operation: 'create' as LogEntryPayload['operation'] }, A.priv);
    expect(verifyLog([legacy], {})).toEqual({ ok: true, currentDidKey: A.did });
  });

  it('refuses the wrong method prefix', () => {
    expectError(verifyLog(LOG, { method: 'aw' }), 'did:aw stable id');
  });

  it('refuses an empty log and seq gaps', () => {
    expectError(verifyLog([], {}), 'empty');
    expectError(verifyLog([genesis, third], {}), 'out of order');
    expectError(verifyLog([second, third], {}), 'out of order');
  });

  it('refuses a tampered signature', () => {
    const flipped = Buffer.from(second.signature, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expectError(verifyLog([genesis, { ...second, signature: toBase64Unpadded(flipped) }, third], {}), 'invalid signature');
    expectError(verifyLog([genesis, { ...second, signature: `${second.signature}==` }, third], {}), 'invalid signature');
  });

  it('refuses a broken hash chain', () => {
    const forged = seal(
      { ...buildRotatePayload({ previous: genesis, newDidKey: B.did, timestamp: '2026-05-01T11:00:00Z' }), prev_entry_hash: 'ab'.repeat(32) },
      A.priv,
    );
    expectError(verifyLog([genesis, forged], {}), 'prev_entry_hash mismatch');
  });

  it('refuses broken key continuity', () => {
    const fromX = seal(
      { ...buildRotatePayload({ previous: second, newDidKey: C.did, timestamp: '2026-05-01T12:00:00Z' }), previous_did_key: X.did, authorized_by: X.did },
      X.priv,
    );
    expectError(verifyLog([genesis, second, fromX], {}), 'broken key continuity');
  });

  it('refuses a rotation signed by the new key', () => {
    const selfSigned = seal(
      { ...buildRotatePayload({ previous: genesis, newDidKey: B.did, timestamp: '2026-05-01T11:00:00Z' }), authorized_by: B.did },
      B.priv,
    );
    expectError(verifyLog([genesis, selfSigned], {}), 'authorized by the previous key');
  });

  it('refuses a non-canonical state hash even when signed', () => {
    const bad = seal(
      { ...buildRotatePayload({ previous: genesis, newDidKey: B.did, timestamp: '2026-05-01T11:00:00Z' }), state_hash: '11'.repeat(32) },
      A.priv,
    );
    expectError(verifyLog([genesis, bad], {}), 'state_hash mismatch');
  });

  it('refuses a recorded entry hash that does not match', () => {
    expectError(verifyLog([genesis, { ...second, entry_hash: genesis.entry_hash }], {}), 'entry_hash mismatch');
  });

  it('refuses genesis rule violations', () => {
    const other = stableIdFromPublicKey(X.pub);
    const notDerived = seal({ ...genesis, did_aw: other, state_hash: stateHash(other, A.did) }, A.priv);
    expectError(verifyLog([notDerived], {}), 'not derived');
    const foreign = seal({ ...genesis, authorized_by: X.did }, X.priv);
    expectError(verifyLog([foreign], {}), 'own key');
    const rotateFirst = seal({ ...genesis, operation: 'rotate_key' }, A.priv);
    expectError(verifyLog([rotateFirst], {}), 'genesis must be register_did');
  });

  it('refuses a later entry that is not rotate_key', () => {
    const reRegister = seal({ ...second, operation: 'register_did' }, A.priv);
    expectError(verifyLog([genesis, reRegister], {}), 'rotate_key');
  });

  it('refuses malformed timestamps', () => {
    for (const timestamp of ['2026-05-01T11:00:00.123Z', '2026-05-01 11:00:00Z', '2026-05-01T11:00:00']) {
      const entry = seal({ ...second, timestamp }, A.priv);
      expectError(verifyLog([genesis, entry], {}), 'timestamp');
    }
  });

  it('refuses entries whose did_aw drifts', () => {
    const other = stableIdFromPublicKey(X.pub);
    expectError(verifyLog([genesis, { ...second, did_aw: other }], {}), 'did_aw mismatch');
  });
});

describe('verifyLogHead', () => {
  const head = (entry: LogEntry): LogHead => {
    const { did_aw: _drop, ...rest } = entry;
    return rest;
  };
  const cacheOf = (entry: LogEntry) => ({ seq: entry.seq, entry_hash: entry.entry_hash, current_did_key: entry.new_did_key });

  it('verifies a genesis head and degrades without one', () => {
    expect(verifyLogHead({ didAw: DID, currentDidKey: A.did, logHead: head(genesis) })).toBe('OK_VERIFIED');
    expect(verifyLogHead({ didAw: DID, currentDidKey: A.did, logHead: null })).toBe('OK_DEGRADED');
  });

  it('degrades an unanchored rotation and verifies an anchored one', () => {
    expect(verifyLogHead({ didAw: DID, currentDidKey: B.did, logHead: head(second) })).toBe('OK_DEGRADED');
    expect(verifyLogHead({ didAw: DID, currentDidKey: B.did, logHead: head(second), cached: cacheOf(genesis) })).toBe('OK_VERIFIED');
    expect(verifyLogHead({ didAw: DID, currentDidKey: C.did, logHead: head(third), cached: cacheOf(genesis) })).toBe('OK_DEGRADED');
    expect(verifyLogHead({ didAw: DID, currentDidKey: B.did, logHead: head(second), cached: cacheOf(second) })).toBe('OK_VERIFIED');
  });

  it('reports regression, split view and broken chains as hard errors', () => {
    expect(verifyLogHead({ didAw: DID, currentDidKey: A.did, logHead: head(genesis), cached: cacheOf(second) })).toEqual({
      hardError: 'log_head seq regression',
    });
    const fork = seal(buildRotatePayload({ previous: genesis, newDidKey: X.did, timestamp: '2026-05-01T11:00:00Z' }), A.priv);
    expect(verifyLogHead({ didAw: DID, currentDidKey: X.did, logHead: head(fork), cached: cacheOf(second) })).toEqual({ hardError: 'log_head split view' });
    const offChain = seal(
      { ...buildRotatePayload({ previous: second, newDidKey: C.did, timestamp: '2026-05-01T12:00:00Z' }), prev_entry_hash: 'cd'.repeat(32) },
      B.priv,
    );
    expect(verifyLogHead({ didAw: DID, currentDidKey: C.did, logHead: head(offChain), cached: cacheOf(second) })).toEqual({
      hardError: 'log_head broken chain',
    });
    expect(verifyLogHead({ didAw: DID, currentDidKey: C.did, logHead: head(third), cached: { ...cacheOf(second), current_did_key: X.did } })).toEqual({
      hardError: 'log_head previous key is not the cached current key',
    });
  });

  it('refuses heads that do not match the answer or the method', () => {
    expect(verifyLogHead({ didAw: DID, currentDidKey: B.did, logHead: head(genesis) })).toEqual({ hardError: 'log_head new_did_key mismatch' });
    expect(verifyLogHead({ didAw: DID, currentDidKey: A.did, logHead: head(genesis) }, 'aw')).toEqual({ hardError: 'did_aw is not a did:aw stable id' });
    expect(verifyLogHead({ didAw: DID, currentDidKey: 'did:key:zBad', logHead: null })).toEqual({ hardError: 'current_did_key is not an Ed25519 did:key' });
    expect(verifyLogHead({ didAw: stableIdFromPublicKey(X.pub), currentDidKey: A.did, logHead: head(genesis) })).toEqual({
      hardError: 'did_aw is not derived from the genesis key',
    });
    expect(verifyLogHead({ didAw: DID, currentDidKey: B.did, logHead: { ...head(second), signature: genesis.signature }, cached: cacheOf(genesis) })).toEqual({
      hardError: 'invalid signature',
    });
    expect(verifyLogHead({ didAw: DID, currentDidKey: A.did, logHead: { ...head(genesis), seq: 0 } })).toEqual({ hardError: 'seq must be an integer >= 1' });
  });
});
