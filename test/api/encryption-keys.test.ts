/**
 * End-to-end encryption keys over real HTTP: a custodial identity's assertion is made with it and
 * served where upstream's clients look (`GET /v1/did/{did_aw}/key`), verified here by a check
 * written with node:crypto alone; the owner rotates it (linking the previous key); a signing-key
 * rotation re-signs it; a self-custodial team member publishes its own (`PUT
 * /v1/agents/me/encryption-key`) and is listed with it (`GET /v1/agents`), and each kind of wrong
 * assertion is refused by its code; an expired assertion is not served, and the node renews it at
 * its next start. No answer carries anything but public keys.
 */
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EncryptionKeyAssertion, EncryptionKeyRotated, PublishedEncryptionKey } from '../../contract/core/encryption-keys.ts';
import { TeamAgents } from '../../contract/core/team.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import type { ApiResponse } from '../support/node.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { canonical, selfKey, type SelfKey } from '../support/self-signer.ts';
import { upstreamMember, type UpstreamClient } from '../support/upstream-client.ts';

const DAY = 24 * 60 * 60 * 1000;
const DOMAIN = 'keys.test';
let t: TestNode;
/** The node's clock runs `offset` ms ahead of the real one. */
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
let alice: any; // custodial, persistent, with an address
let member: UpstreamClient; // a self-custodial team member
/** Every answer body the test saw, scanned at the end for anything that is not a public key. */
const answers: string[] = [];

async function seen<T>(response: Promise<ApiResponse<T>>): Promise<ApiResponse<T>> {
  const answer = await response;
  answers.push(JSON.stringify(answer.body));
  return answer;
}

beforeAll(async () => {
  t = await startTestNode({ clock });
  await createNodeNamespace(t, DOMAIN);
  const project = await createProject(t, 'keys', DOMAIN);
  alice = await createIdentity(t, project.api_key, persistent('alice'));
  const teamId = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'crew', domain: DOMAIN }), 201).team_id;
  member = await upstreamMember(t, teamId, 'mel');
  expectOk(await member.request('POST', '/v1/connect', { hostname: 'laptop' }));
});
afterAll(async () => {
  await t.stop();
});

// ------------------------------------------------------------------ an independent reading of the assertion

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const b64raw = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');
const keyIdOf = (publicKey: Uint8Array) =>
  `sha256:${b64raw(
    createHash('sha256')
      .update(Buffer.concat([Buffer.from('aweb-e2ee-v2 encryption-key\n'), publicKey]))
      .digest(),
  )}`;

function ed25519OfDidKey(didKey: string): Buffer {
  let n = 0n;
  for (const char of didKey.slice('did:key:z'.length)) n = n * 58n + BigInt(ALPHABET.indexOf(char));
  const bytes = Buffer.from(n.toString(16).padStart(68, '0'), 'hex');
  expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xed, 0x01]));
  return bytes.subarray(2);
}

/** Upstream's rules, written here from the contract: the fields, the key id, the time window, the signature. */
function verifiesIndependently(assertion: Record<string, string>, didKey: string, stableId: string | undefined, at = clock.now().getTime()): boolean {
  const { signature, ...signed } = assertion;
  const publicKey = Buffer.from(assertion.encryption_public_key!, 'base64');
  const signer = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: ed25519OfDidKey(didKey).toString('base64url') }, format: 'jwk' });
  return (
    assertion.operation === 'publish_encryption_key' &&
    assertion.version === 'aweb-e2ee-key-v1' &&
    assertion.algorithm === 'x25519' &&
    assertion.identity_did === didKey &&
    assertion.identity_stable_id === stableId &&
    publicKey.length === 32 &&
    assertion.encryption_key_id === keyIdOf(publicKey) &&
    Date.parse(assertion.not_before!) <= at &&
    Date.parse(assertion.expires_at!) > at &&
    verify(null, Buffer.from(canonical(signed)), signer, Buffer.from(signature!, 'base64'))
  );
}

/** An assertion as a self-custodial client builds it, with its own key. */
function clientAssertion(key: SelfKey, overrides: Record<string, string | undefined> = {}, atMs = Date.now() - 60_000): Record<string, string> {
  const publicKey = Buffer.from(generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const time = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.000Z$/, 'Z');
  const fields: Record<string, string | undefined> = {
    operation: 'publish_encryption_key',
    version: 'aweb-e2ee-key-v1',
    identity_did: key.didKey,
    custody: 'self',
    encryption_key_id: keyIdOf(publicKey),
    encryption_public_key: b64raw(publicKey),
    algorithm: 'x25519',
    created_at: time(atMs),
    not_before: time(atMs),
    expires_at: time(atMs + 90 * DAY),
    ...overrides,
  };
  const unsigned = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return { ...unsigned, signature: key.sign(canonical(unsigned)) };
}

const didKeyAnswer = async (didAw: string) => expectOk(await seen(t.request('GET', `/v1/did/${didAw}/key`)));
const publish = (body: unknown, as = member) => seen(as.request('PUT', '/v1/agents/me/encryption-key', body));
const rotate = (agentId: string) => seen(t.owner('POST', `/v1/node/identities/${agentId}/encryption-key/rotate`));

// ------------------------------------------------------------------ custodial identities

describe('a custodial identity', () => {
  it('has an assertion from its creation, served with its did:key, that an independent check verifies', async () => {
    const answer = await didKeyAnswer(alice.did_aw);
    const assertion = EncryptionKeyAssertion.parse(answer.encryption_key);
    expect(answer.current_did_key).toBe(alice.did_key);
    expect(assertion).toMatchObject({ identity_did: alice.did_key, identity_stable_id: alice.did_aw, custody: 'self' });
    expect(assertion.previous_encryption_key_id).toBeUndefined();
    expect(Date.parse(assertion.expires_at) - Date.parse(assertion.created_at)).toBe(90 * DAY);
    expect(verifiesIndependently(assertion, alice.did_key, alice.did_aw)).toBe(true);
    // The check is a check: one changed field and it fails.
    expect(verifiesIndependently({ ...assertion, expires_at: '2099-01-01T00:00:00Z' }, alice.did_key, alice.did_aw)).toBe(false);
  });

  it('gets a fresh key when the owner rotates it; the new assertion names the previous key', async () => {
    const before = EncryptionKeyAssertion.parse((await didKeyAnswer(alice.did_aw)).encryption_key);
    const rotated = EncryptionKeyRotated.parse(expectOk(await rotate(alice.agent_id)));
    expect(rotated.agent_id).toBe(alice.agent_id);
    expect(rotated.encryption_key.encryption_key_id).not.toBe(before.encryption_key_id);
    expect(rotated.encryption_key.previous_encryption_key_id).toBe(before.encryption_key_id);
    expect(verifiesIndependently(rotated.encryption_key, alice.did_key, alice.did_aw)).toBe(true);
    expect((await didKeyAnswer(alice.did_aw)).encryption_key).toEqual(rotated.encryption_key);
  });

  it('has its assertion re-signed by the new key when its signing key rotates', async () => {
    const before = EncryptionKeyAssertion.parse((await didKeyAnswer(alice.did_aw)).encryption_key);
    const rotated = expectOk(await seen(t.request('PUT', '/v1/agents/me/rotate', { token: alice.api_key })));
    const answer = await didKeyAnswer(alice.did_aw);
    expect(answer.current_did_key).toBe(rotated.new_did);
    expect(answer.encryption_key.encryption_key_id).toBe(before.encryption_key_id);
    expect(verifiesIndependently(answer.encryption_key, rotated.new_did, alice.did_aw)).toBe(true);
    alice = { ...alice, did_key: rotated.new_did };
  });

  it('publishes no assertion of its own (the node manages its key), and the owner rotates only known identities', async () => {
    expectRefusal(
      await seen(t.request('PUT', '/v1/agents/me/encryption-key', { token: alice.api_key, body: clientAssertion(selfKey()) })),
      409,
      /custodial/,
      'SVC_ERR_ENCRYPTION_KEY_NODE_MANAGED',
    );
    expectRefusal(await rotate('00000000-0000-4000-8000-000000000000'), 404, undefined, 'SVC_ERR_IDENTITY_NOT_FOUND');
    expectRefusal(await seen(t.request('POST', `/v1/node/identities/${alice.agent_id}/encryption-key/rotate`)), 401, undefined, 'SVC_ERR_OWNER_TOKEN_REQUIRED');
  });
});

// ------------------------------------------------------------------ self-custodial identities

describe('a self-custodial team member', () => {
  it('is listed without a key until it publishes one, and the node does not rotate its key', async () => {
    const listed = TeamAgents.parse(expectOk(await seen(member.request('GET', '/v1/agents'))));
    expect(listed.agents.find((a) => a.alias === 'mel')?.encryption_key).toBeUndefined();
    const agentId = listed.agents.find((a) => a.alias === 'mel')!.agent_id;
    expectRefusal(await rotate(agentId), 409, /PUT \/v1\/agents\/me\/encryption-key/, 'SVC_ERR_IDENTITY_SELF_CUSTODIAL');
  });

  it('refuses an assertion of another identity, another stable id, an expired one, a bad signature, an unknown field', async () => {
    const other = selfKey();
    expectRefusal(await publish(clientAssertion(other)), 422, /identity_did/, 'SVC_ERR_ENCRYPTION_KEY_ASSERTION_WRONG_IDENTITY');
    expectRefusal(
      await publish(clientAssertion(member.key, { identity_stable_id: member.key.didSvc })),
      422,
      /identity_stable_id/,
      'SVC_ERR_ENCRYPTION_KEY_ASSERTION_WRONG_IDENTITY',
    );
    expectRefusal(await publish(clientAssertion(member.key, {}, Date.now() - 100 * DAY)), 422, /expired/, 'SVC_ERR_ENCRYPTION_KEY_ASSERTION_EXPIRED');
    expectRefusal(await publish(clientAssertion(member.key, {}, Date.now() + DAY)), 422, /not active yet/, 'SVC_ERR_ENCRYPTION_KEY_ASSERTION_EXPIRED');
    // Signed by another key but naming this identity: the signature does not verify.
    const forged = { ...clientAssertion(other), identity_did: member.key.didKey };
    expectRefusal(await publish(forged), 422, /signature/, 'SVC_ERR_ENCRYPTION_KEY_ASSERTION_INVALID');
    // A key swapped in after signing: its id no longer matches, or the signature no longer covers it.
    const good = clientAssertion(member.key);
    const swapped = clientAssertion(member.key);
    expectRefusal(
      await publish({ ...good, encryption_public_key: swapped.encryption_public_key }),
      422,
      /encryption_key_id/,
      'SVC_ERR_ENCRYPTION_KEY_ASSERTION_INVALID',
    );
    expectRefusal(
      await publish({ ...good, encryption_public_key: swapped.encryption_public_key, encryption_key_id: swapped.encryption_key_id }),
      422,
      /signature/,
      'SVC_ERR_ENCRYPTION_KEY_ASSERTION_INVALID',
    );
    expectRefusal(await publish(clientAssertion(member.key, { custody: 'escrowed' })), 422, /custody/, 'SVC_ERR_ENCRYPTION_KEY_ASSERTION_INVALID');
    expectValidation(await publish({ ...good, note: 'unsigned' }), 'note');
    const listed = TeamAgents.parse(expectOk(await seen(member.request('GET', '/v1/agents'))));
    expect(listed.agents.find((a) => a.alias === 'mel')?.encryption_key).toBeUndefined();
  });

  it('publishes its own assertion, answered in upstream’s shape and listed in GET /v1/agents', async () => {
    const assertion = clientAssertion(member.key);
    const published = PublishedEncryptionKey.parse(expectOk(await publish(assertion)));
    expect(published).toMatchObject({ team_id: member.teamId, alias: 'mel', encryption_key: assertion });
    const listed = TeamAgents.parse(expectOk(await seen(member.request('GET', '/v1/agents'))));
    const mel = listed.agents.find((a) => a.alias === 'mel')!;
    expect(mel.agent_id).toBe(published.agent_id);
    expect(mel.encryption_key).toEqual(assertion);
    expect(verifiesIndependently(mel.encryption_key!, member.key.didKey, undefined)).toBe(true);
    // A rotation by the client: the new assertion replaces the old one.
    const next = clientAssertion(member.key, { previous_encryption_key_id: assertion.encryption_key_id });
    expectOk(await publish(next));
    const relisted = TeamAgents.parse(expectOk(await seen(member.request('GET', '/v1/agents'))));
    expect(relisted.agents.find((a) => a.alias === 'mel')?.encryption_key).toEqual(next);
  });
});

// ------------------------------------------------------------------ what is served

describe('answers', () => {
  it('carry no private key: every 32-byte base64 value in them is a published public key', () => {
    const publicKeys = new Set<string>();
    for (const text of answers) {
      for (const match of text.matchAll(/"encryption_public_key":"([^"]+)"/g)) publicKeys.add(match[1]!);
      // Signing public keys are public too (a rotation answers the new one beside its did:key).
      for (const [didKey] of text.matchAll(/did:key:z[1-9A-HJ-NP-Za-km-z]+/g)) {
        const key = ed25519OfDidKey(didKey);
        for (const spelling of [b64raw(key), key.toString('base64'), key.toString('base64url')]) publicKeys.add(spelling);
      }
    }
    expect(publicKeys.size).toBeGreaterThan(2);
    const others = answers.flatMap((text) => [...text.matchAll(/"([A-Za-z0-9+/_-]{43}=?)"/g)].map((m) => m[1]!)).filter((v) => !publicKeys.has(v));
    expect(others).toEqual([]);
    expect(answers.join('\n')).not.toMatch(/private|seed/i);
  });
});

// ------------------------------------------------------------------ the node's clock

describe('expiry and renewal', () => {
  it('an expired assertion is not served; the node renews it at its next start, keeping the key', async () => {
    const before = EncryptionKeyAssertion.parse((await didKeyAnswer(alice.did_aw)).encryption_key);
    offset = 91 * DAY;
    expect((await didKeyAnswer(alice.did_aw)).encryption_key).toBeUndefined();
    await t.stop({ keepData: true });
    t = await startTestNode({ clock, dataDir: t.dataDir });
    const renewed = EncryptionKeyAssertion.parse((await didKeyAnswer(alice.did_aw)).encryption_key);
    expect(renewed.encryption_key_id).toBe(before.encryption_key_id);
    expect(Date.parse(renewed.expires_at)).toBeGreaterThan(Date.parse(before.expires_at));
    expect(verifiesIndependently(renewed, alice.did_key, alice.did_aw)).toBe(true);
  });
});
