/**
 * The owner's view of each identity's end-to-end encryption key over real HTTP
 * (`GET /v1/node/identities`, each identity's `encryption_key`): published with a custodial
 * identity and renewed by the node, expiring once the node's clock reaches the renewal window the
 * sweep uses, rotated by the owner (the rotation's answer carries the summary the list then
 * shows), expired once its time has passed, and missing for a self-custodial identity until its
 * client publishes one (then held by `self`, with no renewal date).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EncryptionKeyRotated, type EncryptionKeySummary } from '../../contract/core/encryption-keys.ts';
import { IdentityList } from '../../contract/node/identities.ts';
import { publicKeyFromDidKey } from '../../server/crypto/did-key.ts';
import { RENEW_BEFORE_EXPIRY_MS } from '../../server/surfaces/core/identities/domain/encryption-key-health.ts';
import { testParty } from '../support/e2ee-parties.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const DAY = 24 * 60 * 60 * 1000;
let t: TestNode;
/** The node's clock runs `offset` ms ahead of the real one. */
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
let alice: { agent_id: string; api_key: string };
let selfie: { agent_id: string; api_key: string };
const party = testParty();

async function summaryOf(agentId: string): Promise<EncryptionKeySummary> {
  const list = IdentityList.parse(expectOk(await t.owner('GET', '/v1/node/identities')));
  const found = list.identities.find((identity) => identity.agent_id === agentId);
  expect(found).toBeDefined();
  return found!.encryption_key;
}

beforeAll(async () => {
  t = await startTestNode({ clock });
  await createNodeNamespace(t, 'health.test');
  const project = await createProject(t, 'health', 'health.test');
  alice = await createIdentity(t, project.api_key, persistent('alice'));
  selfie = await createIdentity(t, project.api_key, {
    alias: 'selfie',
    custody: 'self',
    did: party.did,
    public_key: Buffer.from(publicKeyFromDidKey(party.did)!).toString('base64'),
  });
});
afterAll(async () => {
  await t.stop();
});

describe('the owner’s identity list', () => {
  it('shows a custodial identity’s key published, held by the node, renewed when the renewal window opens, never rotated', async () => {
    const summary = await summaryOf(alice.agent_id);
    expect(summary).toMatchObject({ state: 'published', holder: 'node', earlier_keys: 0, rotated_at: null });
    expect(summary.encryption_key_id).toMatch(/^sha256:/);
    const expires = Date.parse(summary.expires_at!);
    // The assertion's times are whole seconds; the key's creation is the node's clock to the millisecond.
    expect(Math.abs(expires - Date.parse(summary.created_at!) - 90 * DAY)).toBeLessThan(1000);
    expect(Date.parse(summary.renews_at!)).toBe(expires - RENEW_BEFORE_EXPIRY_MS);
  });

  it('shows it expiring once the node’s clock is within the renewal window, and not a day before', async () => {
    const { expires_at } = await summaryOf(alice.agent_id);
    const untilExpiry = Date.parse(expires_at!) - Date.now();
    offset = untilExpiry - RENEW_BEFORE_EXPIRY_MS - DAY;
    expect((await summaryOf(alice.agent_id)).state).toBe('published');
    offset = untilExpiry - RENEW_BEFORE_EXPIRY_MS + DAY;
    expect((await summaryOf(alice.agent_id)).state).toBe('expiring');
  });

  it('shows a rotation: the answer carries the summary the list then shows, one earlier key, when it was replaced', async () => {
    const before = await summaryOf(alice.agent_id);
    const rotated = EncryptionKeyRotated.parse(expectOk(await t.owner('POST', `/v1/node/identities/${alice.agent_id}/encryption-key/rotate`)));
    const after = await summaryOf(alice.agent_id);
    expect(rotated.summary).toEqual(after);
    expect(after).toMatchObject({ state: 'published', holder: 'node', encryption_key_id: rotated.encryption_key.encryption_key_id, earlier_keys: 1 });
    expect(after.encryption_key_id).not.toBe(before.encryption_key_id);
    expect(Math.abs(Date.parse(after.rotated_at!) - clock.now().getTime())).toBeLessThan(60_000);
    expect((await summaryOf(alice.agent_id)).earlier_keys).toBe(1);
    expect((await t.owner('POST', `/v1/node/identities/${alice.agent_id}/encryption-key/rotate`)).status).toBe(200);
    expect(await summaryOf(alice.agent_id)).toMatchObject({ earlier_keys: 2, state: 'published' });
  });

  it('shows a self-custodial identity’s key missing until its client publishes one, then held by itself with no renewal date', async () => {
    offset = 0;
    expect(await summaryOf(selfie.agent_id)).toEqual({
      state: 'missing',
      holder: 'self',
      encryption_key_id: null,
      created_at: null,
      expires_at: null,
      renews_at: null,
      earlier_keys: 0,
      rotated_at: null,
    });
    expectOk(await t.request('PUT', '/v1/agents/me/encryption-key', { token: selfie.api_key, body: party.encryptionKey }));
    expect(await summaryOf(selfie.agent_id)).toMatchObject({
      state: 'published',
      holder: 'self',
      encryption_key_id: party.encryptionKey.encryption_key_id,
      renews_at: null,
      earlier_keys: 0,
      rotated_at: null,
    });
  });

  it('shows a key expired once its time passed (a node off past the expiry, a client that did not publish again)', async () => {
    offset = 200 * DAY;
    expect((await summaryOf(alice.agent_id)).state).toBe('expired');
    expect((await summaryOf(selfie.agent_id)).state).toBe('expired');
  });
});
