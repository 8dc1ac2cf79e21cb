/**
 * The did:svc registry (spec §4.2; docs/adr/0002-did-svc-identity-log-and-namespace-records.md): a
 * self-custodial client registers and rotates with entries it signs itself; reads are public; the
 * log verifies end to end and is append-only in the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog, type LogEntry } from '../../server/crypto/identity-log.ts';
import { openNodeDatabase } from '../support/database.ts';
import { registerBody, rotateBody, stableIdOf } from '../support/did.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { testKey, timestamp, type TestKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;

beforeAll(async () => {
  t = await startTestNode();
});
afterAll(async () => {
  await t.stop();
});

const register = (body: unknown) => t.request('POST', '/v1/did', { body });
const rotate = (didAw: string, body: unknown) => t.request('PUT', `/v1/did/${didAw}`, { body });
const keyOf = (didAw: string) => t.request('GET', `/v1/did/${didAw}/key`);
const logOf = (didAw: string) => t.request('GET', `/v1/did/${didAw}/log`);

/** The stored log, with its entries typed. */
async function storedLog(didAw: string): Promise<LogEntry[]> {
  return expectOk(await logOf(didAw)) as LogEntry[];
}

/** A did:svc registered for `key`. */
async function registered(key: TestKey = testKey()): Promise<{ key: TestKey; didAw: string }> {
  expectOk(await register(registerBody(key)));
  return { key, didAw: stableIdOf(key) };
}

describe('POST /v1/did', () => {
  it('registers a self-signed genesis entry and answers a repeat the same way', async () => {
    const key = testKey();
    const didAw = stableIdOf(key);
    const body = registerBody(key);
    const expected = { registered: true, did_aw: didAw, current_did_key: key.didKey };
    expect(expectOk(await register(body))).toEqual(expected);
    expect(expectOk(await register(body))).toEqual(expected);
    expect(expectOk(await register(registerBody(key, { at: timestamp(-5) })))).toEqual(expected);
    const log = await storedLog(didAw);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ did_aw: didAw, seq: 1, operation: 'register_did', new_did_key: key.didKey, authorized_by: key.didKey });
  });

  it('refuses to bind a registered did:svc to a key it no longer holds (409)', async () => {
    const { key, didAw } = await registered();
    const next = testKey();
    const head = (await storedLog(didAw))[0] as LogEntry;
    expectOk(await rotate(didAw, rotateBody(key, head, next)));
    // The genesis key asks again for the did:svc that has moved on to `next`.
    expectRefusal(await register(registerBody(key)), 409, /already registered/, 'SVC_ERR_DID_TAKEN');
    expect(expectOk(await keyOf(didAw)).current_did_key).toBe(next.didKey);
    expect(await storedLog(didAw)).toHaveLength(2);
  });

  it('refuses a proof that does not verify (401)', async () => {
    const key = testKey();
    expectRefusal(await register(registerBody(key, { signer: testKey() })), 401, /proof/, 'SVC_ERR_SIGNATURE_INVALID');
    expectRefusal(await register({ ...registerBody(key), proof: 'AAAA' }), 401, /proof/, 'SVC_ERR_SIGNATURE_INVALID');
    expectRefusal(await keyOf(stableIdOf(key)), 404, undefined, 'SVC_ERR_DID_NOT_FOUND');
  });

  it('refuses a bad proof for an already registered did:svc too (401), leaving it as it was', async () => {
    const { key, didAw } = await registered();
    const before = await storedLog(didAw);
    expectRefusal(await register(registerBody(key, { signer: testKey(), at: timestamp(-2) })), 401, /proof/);
    expect(await storedLog(didAw)).toEqual(before);
  });

  it('refuses a did_aw that is not derived from the key (422)', async () => {
    const key = testKey();
    const other = testKey();
    expectRefusal(await register(registerBody(key, { patch: { did_aw: stableIdOf(other) } })), 422, /derived/, 'SVC_ERR_DID_ENTRY_INVALID');
    expectRefusal(await keyOf(stableIdOf(other)), 404);
    expectRefusal(await keyOf(stableIdOf(key)), 404);
  });

  it('refuses a genesis entry that is not one (422)', async () => {
    const key = testKey();
    expectRefusal(await register(registerBody(key, { patch: { seq: 2 } })), 422, /genesis/, 'SVC_ERR_DID_ENTRY_INVALID');
    expectRefusal(await register(registerBody(key, { patch: { authorized_by: testKey().didKey } })), 422, /authorized_by/, 'SVC_ERR_DID_ENTRY_INVALID');
    expectRefusal(await register(registerBody(key, { patch: { state_hash: '0'.repeat(64) } })), 422, /state_hash/, 'SVC_ERR_DID_ENTRY_INVALID');
    expectValidation(await register(registerBody(key, { patch: { operation: 'rotate_key' } })), 'operation');
    expectRefusal(await keyOf(stableIdOf(key)), 404);
  });

  it('refuses extra and legacy fields (422)', async () => {
    const key = testKey();
    for (const extra of [{ address: 'acme.test/alice' }, { server: 'https://node.example' }, { handle: '@alice' }, { did_key: key.didKey }, { note: 'x' }]) {
      const field = Object.keys(extra)[0] as string;
      const response = await register({ ...registerBody(key), ...extra });
      expectRefusal(response, 422);
      expect(JSON.stringify(response.body.detail)).toContain(field);
    }
    expectValidation(await register({ ...registerBody(key), proof: undefined }), 'proof');
    expectValidation(await register({ ...registerBody(key), seq: '1' }), 'seq');
    expectValidation(await register({ ...registerBody(key), proof: 'A'.repeat(5000) }), 'proof');
    expectRefusal(await keyOf(stableIdOf(key)), 404);
  });

  it('refuses a timestamp outside ±300 s (401)', async () => {
    const key = testKey();
    expectRefusal(await register(registerBody(key, { at: timestamp(-301) })), 401, /window/, 'SVC_ERR_TIMESTAMP_INVALID');
    expectRefusal(await register(registerBody(key, { at: timestamp(301) })), 401, /window/, 'SVC_ERR_TIMESTAMP_INVALID');
    expectRefusal(await keyOf(stableIdOf(key)), 404);
  });

  it('refuses a timestamp that is not RFC 3339 at second precision (422): the log must stay verifiable', async () => {
    const key = testKey();
    const at = timestamp();
    for (const odd of [at.replace('Z', '.123Z'), at.replace('T', ' '), 'now']) {
      const response = await register(registerBody(key, { at, patch: { timestamp: odd } }));
      expect([401, 422]).toContain(response.status);
      expectRefusal(response, response.status, /timestamp/i);
    }
    expectRefusal(
      await register(registerBody(key, { at, patch: { timestamp: at.replace('Z', '.5Z') } })),
      422,
      /second precision/,
      'SVC_ERR_DID_ENTRY_INVALID',
    );
    expectRefusal(await keyOf(stableIdOf(key)), 404);
  });

  it('refuses malformed JSON (400)', async () => {
    const key = testKey();
    expectRefusal(await t.request('POST', '/v1/did', { raw: JSON.stringify(registerBody(key)).slice(0, -1) }), 400, /JSON/);
    expectRefusal(await keyOf(stableIdOf(key)), 404);
  });
});

describe('PUT /v1/did/{did_aw}', () => {
  it('rotates with an entry signed by the retiring key', async () => {
    const { key, didAw } = await registered();
    const next = testKey();
    const [genesis] = await storedLog(didAw);
    const updated = expectOk(await rotate(didAw, rotateBody(key, genesis as LogEntry, next)));
    expect(updated).toEqual({ updated: true, did_aw: didAw, current_did_key: next.didKey });

    const view = expectOk(await keyOf(didAw));
    expect(view).toMatchObject({ did_aw: didAw, current_did_key: next.didKey });
    expect(view.log_head).toMatchObject({ seq: 2, operation: 'rotate_key', previous_did_key: key.didKey, new_did_key: next.didKey, authorized_by: key.didKey });
    const head = expectOk(await t.request('GET', `/v1/did/${didAw}/head`));
    expect(head).toMatchObject({ did_aw: didAw, current_did_key: next.didKey, seq: 2, entry_hash: view.log_head.entry_hash });
  });

  it('refuses a stale seq or prev_entry_hash (409), leaving the log as it was', async () => {
    const { key, didAw } = await registered();
    const [genesis] = (await storedLog(didAw)) as [LogEntry];
    const next = testKey();
    expectRefusal(await rotate(didAw, rotateBody(key, genesis, next, { patch: { seq: 3 } })), 409, /seq mismatch/, 'SVC_ERR_DID_LOG_STALE');
    expectRefusal(
      await rotate(didAw, rotateBody(key, genesis, next, { patch: { prev_entry_hash: 'f'.repeat(64) } })),
      409,
      /prev_entry_hash mismatch/,
      'SVC_ERR_DID_LOG_STALE',
    );
    expect(await storedLog(didAw)).toEqual([genesis]);
  });

  it('refuses an entry signed by the new key, or authorized by anyone but the current key (401)', async () => {
    const { key, didAw } = await registered();
    const [genesis] = (await storedLog(didAw)) as [LogEntry];
    const next = testKey();
    expectRefusal(await rotate(didAw, rotateBody(key, genesis, next, { signer: next })), 401, /proof/, 'SVC_ERR_SIGNATURE_INVALID');
    expectRefusal(
      await rotate(didAw, rotateBody(next, genesis, next, { patch: { authorized_by: next.didKey, previous_did_key: next.didKey }, signer: next })),
      401,
      /current key/,
      'SVC_ERR_DID_ROTATION_UNAUTHORIZED',
    );
    expect(await storedLog(didAw)).toEqual([genesis]);
    expect(expectOk(await keyOf(didAw)).current_did_key).toBe(key.didKey);
  });

  it('refuses a wrong state_hash (422), a stale timestamp (401), a rotation to the same key (422)', async () => {
    const { key, didAw } = await registered();
    const [genesis] = (await storedLog(didAw)) as [LogEntry];
    const next = testKey();
    expectRefusal(
      await rotate(didAw, rotateBody(key, genesis, next, { patch: { state_hash: genesis.state_hash } })),
      422,
      /state_hash/,
      'SVC_ERR_DID_ENTRY_INVALID',
    );
    expectRefusal(await rotate(didAw, rotateBody(key, genesis, next, { at: timestamp(-301) })), 401, /window/, 'SVC_ERR_TIMESTAMP_INVALID');
    expectRefusal(
      await rotate(didAw, rotateBody(key, genesis, next, { patch: { new_did_key: key.didKey } })),
      422,
      /already the current key/,
      'SVC_ERR_DID_ENTRY_INVALID',
    );
    expect(await storedLog(didAw)).toEqual([genesis]);
  });

  it('refuses a rotation timestamp with fractional seconds (422)', async () => {
    const { key, didAw } = await registered();
    const [genesis] = (await storedLog(didAw)) as [LogEntry];
    const at = timestamp();
    expectRefusal(
      await rotate(didAw, rotateBody(key, genesis, testKey(), { at, patch: { timestamp: at.replace('Z', '.250Z') } })),
      422,
      /second precision/,
      'SVC_ERR_DID_ENTRY_INVALID',
    );
    expect(await storedLog(didAw)).toEqual([genesis]);
    expect(verifyLog(await storedLog(didAw)).ok).toBe(true);
  });

  it('refuses extra fields (422), malformed JSON (400), and an unknown or malformed did (404)', async () => {
    const { key, didAw } = await registered();
    const [genesis] = (await storedLog(didAw)) as [LogEntry];
    const next = testKey();
    expectRefusal(await rotate(didAw, { ...rotateBody(key, genesis, next), did_aw: didAw }), 422);
    expectValidation(await rotate(didAw, { ...rotateBody(key, genesis, next), proof: 'x' }), 'proof');
    expectRefusal(await t.request('PUT', `/v1/did/${didAw}`, { raw: '{"operation":"rotate_key",' }), 400);
    expectRefusal(await rotate(stableIdOf(testKey()), rotateBody(key, genesis, next)), 404, undefined, 'SVC_ERR_DID_NOT_FOUND');
    expectRefusal(await rotate('did:svc:not-base58-0OIl', rotateBody(key, genesis, next)), 404, undefined, 'SVC_ERR_DID_NOT_FOUND');
    expect(await storedLog(didAw)).toEqual([genesis]);
  });
});

describe('GET /v1/did/{did_aw}/key, /head, /log', () => {
  it('answers 404 for an unknown did:svc and a malformed one', async () => {
    const unknown = stableIdOf(testKey());
    for (const didAw of [unknown, 'did:svc:', 'did:svc:0OIl', 'did:aw:2CiZ88hVF4JuQim8nnSuyeiV2HF2', testKey().didKey, 'x'.repeat(200)]) {
      const path = encodeURIComponent(didAw);
      for (const suffix of ['key', 'head', 'log']) {
        expectRefusal(await t.request('GET', `/v1/did/${path}/${suffix}`), 404, /not found/, 'SVC_ERR_DID_NOT_FOUND');
      }
    }
  });

  it('serves a log that verifies end to end across rotations', async () => {
    const first = testKey();
    const { didAw } = await registered(first);
    const keys = [first, testKey(), testKey(), testKey()];
    for (let i = 1; i < keys.length; i++) {
      const log = await storedLog(didAw);
      expectOk(await rotate(didAw, rotateBody(keys[i - 1] as TestKey, log.at(-1) as LogEntry, keys[i] as TestKey)));
    }
    const log = await storedLog(didAw);
    expect(log.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(log.map((e) => e.new_did_key)).toEqual(keys.map((k) => k.didKey));
    expect(verifyLog(log)).toEqual({ ok: true, currentDidKey: (keys[3] as TestKey).didKey });

    const view = expectOk(await keyOf(didAw));
    expect(view.log_head).toEqual(log.at(-1));
    const head = expectOk(await t.request('GET', `/v1/did/${didAw}/head`));
    expect(head).toEqual({
      did_aw: didAw,
      current_did_key: (keys[3] as TestKey).didKey,
      seq: 4,
      entry_hash: log[3]!.entry_hash,
      state_hash: log[3]!.state_hash,
      timestamp: log[3]!.timestamp,
    });

    // A tampered copy does not verify: the check is real.
    const tampered = log.map((e, i) => (i === 2 ? { ...e, new_did_key: first.didKey } : e));
    expect(verifyLog(tampered).ok).toBe(false);
  });
});

describe('did_log in the database', () => {
  it('refuses UPDATE and DELETE', async () => {
    const node = await startTestNode();
    const key = testKey();
    const didAw = stableIdOf(key);
    expectOk(await node.request('POST', '/v1/did', { body: registerBody(key) }));
    const head = expectOk(await node.request('GET', `/v1/did/${didAw}/key`)).log_head as LogEntry;
    expectOk(await node.request('PUT', `/v1/did/${didAw}`, { body: rotateBody(key, { ...head, did_aw: didAw }, testKey()) }));
    const served = expectOk(await node.request('GET', `/v1/did/${didAw}/log`)) as LogEntry[];
    await node.stop({ keepData: true });

    const { db, close } = await openNodeDatabase(node.dataDir);
    try {
      expect(() => db.prepare(`UPDATE did_log SET new_did_key = ? WHERE did_aw = ? AND seq = 2`).run(key.didKey, didAw)).toThrow(/append-only/);
      expect(() => db.prepare(`DELETE FROM did_log WHERE did_aw = ?`).run(didAw)).toThrow(/append-only/);
      expect(() => db.prepare(`DELETE FROM did_log`).run()).toThrow(/append-only/);
      const rows = db.prepare(`SELECT did_aw, seq, new_did_key, entry_hash FROM did_log WHERE did_aw = ? ORDER BY seq`).all(didAw);
      expect(rows).toEqual(served.map(({ did_aw, seq, new_did_key, entry_hash }) => ({ did_aw, seq, new_did_key, entry_hash })));
    } finally {
      close();
      node.removeData();
    }
  });
});
