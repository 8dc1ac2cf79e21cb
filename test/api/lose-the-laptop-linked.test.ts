/**
 * "Lose the laptop", with a linked device alive: node A (the laptop) holds alice (an address on her
 * domain) and her team's document with its history; J is her always-on node, linked to A; bob is
 * on node B. Mail and chat go both ways, end to end encrypted. Then A is wiped, its whole data
 * folder gone, though someone else kept a copy of it.
 *
 * J carries on: alice sends from it, and it has everything. A new laptop, restored from alice's
 * kit, links to J (`kit restore --link`; a kit of another node is refused) and, on A's address,
 * has every message (each opened), the chat and the document's history; bob's mail sent
 * while A was gone arrives and shows on J; alice keeps her did:key and did:svc and her agent's API
 * key, and her reply verifies at B with no change of identity. The lost device is revoked with new
 * keys for alice: what its copy signs is refused, and bob takes alice's new key.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingTimestamp, systemClock } from '../../server/clock.ts';
import { Custody } from '../../server/custody/custody.ts';
import { deviceRequestHeaders } from '../../server/devices/device-request.ts';
import { closeDatabase, openDatabase } from '../../server/store/database.ts';
import { arrived, historyOf } from '../support/chat-arrivals.ts';
import { runCli } from '../support/cli.ts';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk } from '../support/expect.ts';
import { arrivedMail, inboxOf, sendMail } from '../support/mail-between.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { requestJson, startTestNode, type TestNode } from '../support/node.ts';
import { asOwnerApp } from '../support/teams.ts';

const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
const SYNC = { deviceSyncWaitMs: 3_000 };
const WAIT = { timeout: 15_000, interval: 50 };
const words = (what: string): string => `${what} ${randomBytes(6).toString('hex')}`;

const root = mkdtempSync(join(tmpdir(), 'svc-lose-laptop-linked-'));
const aDir = join(root, 'laptop');
const jDir = join(root, 'always-on');
const stolen = join(root, 'stolen-copy');
const kitFile = join(root, 'alice.kit');
const PASSPHRASE = 'seven words would be better than this';

let a: TestNode;
let b: TestNode;
let j: TestNode;
let alice: any;
let bob: any;
let docs: DocsClient;
let aPort: number;
let lostDeviceId: string;

const before = {
  toBob: { subject: words('to bob'), body: words('first') },
  toAlice: { subject: words('to alice'), body: words('answer') },
  chat: [words('chat from alice'), words('chat from bob')],
  mailIds: [] as string[],
  chatIds: [] as string[],
  sessionId: '',
};

async function link(from: TestNode, dataDir: string, name: string): Promise<any> {
  const made = expectOk(await from.owner('POST', '/v1/node/devices/link'), 201);
  const joined = await runCli(['device', 'join', made.url, made.code, '--data', dataDir, '--name', name, '--json']);
  expect(joined.code, joined.stderr).toBe(0);
  return JSON.parse(joined.stdout);
}

beforeAll(async () => {
  a = await startTestNode({ dataDir: aDir, outbox: FAST_OUTBOX, ...SYNC });
  b = await startTestNode({ outbox: FAST_OUTBOX });
  aPort = Number(new URL(a.url).port);
  await createNodeNamespace(a, 'a.test');
  await createNodeNamespace(b, 'b.test');
  alice = await createIdentity(a, (await createProject(a, 'pa', 'a.test')).api_key, persistent('alice'));
  bob = await createIdentity(b, (await createProject(b, 'pb', 'b.test')).api_key, persistent('bob'));
  expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: b.url }), 201);
  expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: a.url }), 201);
  docs = await addDocsMember(a, { team: 'crew' });
});

afterAll(async () => {
  await j.stop();
  await a.stop();
  await b.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('losing the laptop, with a linked device alive', { timeout: 90_000 }, () => {
  it('before the loss: an always-on node linked to the laptop; mail and chat both ways; a document with its history', async () => {
    lostDeviceId = (expectOk(await a.owner('GET', '/v1/node/devices')).devices as any[])[0].device_id;
    await link(a, jDir, 'Always on');
    j = await startTestNode({ dataDir: jDir, outbox: FAST_OUTBOX, ...SYNC });

    const first = await sendMail(a, alice.api_key, { to_address: 'b.test/bob', ...before.toBob });
    await arrivedMail(b, bob.api_key, first);
    const answer = await sendMail(b, bob.api_key, { to_address: 'a.test/alice', ...before.toAlice });
    await arrivedMail(a, alice.api_key, answer);
    before.mailIds.push(first, answer);
    const started = expectOk(
      await a.request('POST', '/v1/chat/sessions', { token: alice.api_key, body: { to_addresses: ['b.test/bob'], message: before.chat[0] } }),
    );
    const got = await arrived(b, bob.api_key, started.message_id);
    const replied = expectOk(await b.request('POST', `/v1/chat/sessions/${got.sessionId}/messages`, { token: bob.api_key, body: { body: before.chat[1] } }));
    await arrived(a, alice.api_key, replied.message_id);
    before.sessionId = started.session_id;
    before.chatIds.push(started.message_id, replied.message_id);
    expectOk(await docs.create('plan', '# Plan\n\nThe first draft.'), 201);
    expectOk(await docs.append('plan', '# Plan\n\nThe second draft.'), 201);
    // The always-on node has it all before the loss.
    expect(await arrivedMail(j, alice.api_key, answer)).toMatchObject({ ...before.toAlice, end_to_end: true });
    await expect.poll(async () => (await asOwnerApp(j, docs.teamId, 'GET', '/v1/documents/plan/versions', { surface: 'docs' })).body?.length, WAIT).toBe(2);

    // A recovery kit, as the person made one before the loss.
    writeFileSync(kitFile, expectOk(await a.owner('POST', '/v1/node/recovery-kit', { passphrase: PASSPHRASE }), 201).kit, { mode: 0o600 });

    // The laptop is lost, its whole data folder with it (someone else kept a copy).
    await a.stop({ keepData: true });
    cpSync(aDir, stolen, { recursive: true });
    rmSync(aDir, { recursive: true, force: true });
  });

  it('the always-on node carries on: alice sends from it, and bob verifies it as hers', async () => {
    const mail = { subject: words('from the always-on node'), body: words('still here') };
    const id = await sendMail(j, alice.api_key, { to_address: 'b.test/bob', ...mail });
    expect(await arrivedMail(b, bob.api_key, id)).toMatchObject({ ...mail, end_to_end: true, signature_status: 'verified', from_did: alice.did_key });
  });

  it('a kit of another node does not link to the always-on node, and writes nothing', async () => {
    const other = join(root, 'bob.kit');
    writeFileSync(other, expectOk(await b.owner('POST', '/v1/node/recovery-kit', { passphrase: PASSPHRASE }), 201).kit);
    const made = expectOk(await j.owner('POST', '/v1/node/devices/link'), 201);
    const refused = await runCli(['kit', 'restore', other, '--data', aDir, '--link', made.url, '--code', made.code, '--json'], {
      SVC_NODE_KIT_PASSPHRASE: PASSPHRASE,
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/not node .* that the kit is of/);
    expect(existsSync(aDir)).toBe(false);
  });

  it('a new laptop restored from the kit links to the always-on node and, on the lost one’s address, has everything back', async () => {
    const whileAway = { subject: words('while the laptop was gone'), body: words('queued at B') };
    before.mailIds.push(await sendMail(b, bob.api_key, { to_address: 'a.test/alice', ...whileAway }));
    const made = expectOk(await j.owner('POST', '/v1/node/devices/link'), 201);
    const restored = await runCli(['kit', 'restore', kitFile, '--data', aDir, '--link', made.url, '--code', made.code, '--json'], {
      SVC_NODE_KIT_PASSPHRASE: PASSPHRASE,
    });
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ data_dir: aDir, linked: true, linked_to: { url: j.url }, identities: 1 });
    a = await startTestNode({ dataDir: aDir, port: aPort, outbox: FAST_OUTBOX, ...SYNC });
    // The same identity: did:key, did:svc, the agent's API key.
    expect(expectOk(await a.request('GET', `/v1/did/${alice.did_aw}/key`)).current_did_key).toBe(alice.did_key);
    expect(expectOk(await a.request('GET', '/v1/auth/introspect', { token: alice.api_key }))).toMatchObject({ agent_id: alice.agent_id });
    // Every message, opened; the chat; the document with every version.
    expect(await arrivedMail(a, alice.api_key, before.mailIds[1]!)).toMatchObject({ ...before.toAlice, end_to_end: true, signature_status: 'verified' });
    const sent = expectOk(await a.request('GET', '/v1/messages/sent?limit=50', { token: alice.api_key })).messages as any[];
    expect(sent.find((m) => m.message_id === before.mailIds[0])).toMatchObject(before.toBob);
    const chat = await historyOf(a, alice.api_key, before.sessionId);
    expect(chat.map((m) => [m.message_id, m.body])).toEqual(
      expect.arrayContaining([
        [before.chatIds[0], before.chat[0]],
        [before.chatIds[1], before.chat[1]],
      ]),
    );
    const versions = expectOk(await asOwnerApp(a, docs.teamId, 'GET', '/v1/documents/plan/versions', { surface: 'docs' })) as any[];
    expect(versions.map((v) => v.version_number).sort()).toEqual([1, 2]);
    // Bob's mail sent while the laptop was gone arrives at the new one, and shows on the always-on node.
    expect(await arrivedMail(a, alice.api_key, before.mailIds[2]!)).toMatchObject({ ...whileAway, end_to_end: true });
    expect(await arrivedMail(j, alice.api_key, before.mailIds[2]!)).toMatchObject(whileAway);
  });

  it("alice's reply from the new laptop verifies at B with no change of identity", async () => {
    const reply = { subject: words('back again'), body: words('on a new machine') };
    const back = await sendMail(a, alice.api_key, { to_address: 'b.test/bob', ...reply });
    const got = await arrivedMail(b, bob.api_key, back);
    expect(got).toMatchObject({ ...reply, end_to_end: true, signature_status: 'verified', from_did: alice.did_key, from_address: 'a.test/alice' });
    expect(got.rotation_announcement ?? null).toBeNull();
    expect(got.replacement_announcement ?? null).toBeNull();
  });

  it('the lost laptop is revoked with new keys: what its copy signs is refused, and bob takes alice’s new key', async () => {
    const revoked = await runCli(['device', 'revoke', lostDeviceId, '--rotate-keys', '--data', jDir, '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    const result = JSON.parse(revoked.stdout);
    expect(result).toMatchObject({ device_id: lostDeviceId, revoked_at: expect.any(String) });
    const rotated = result.rotated.find((identity: any) => identity.agent_id === alice.agent_id);
    expect(rotated.new_did).not.toBe(alice.did_key);

    // The stolen copy's device key signs a pull: refused.
    const custody = await Custody.open({ dataDir: stolen, backend: 'key-file', env: {}, warn: () => {} });
    const db = openDatabase({ file: join(stolen, 'node.db'), key: custody.databaseKey() });
    custody.attach(db);
    try {
      const body = { have: {}, wait_ms: 0, keys_digest: '' };
      const path = '/v1/devices/sync/pull';
      const headers = deviceRequestHeaders({ deviceId: lostDeviceId, method: 'POST', path, timestamp: signingTimestamp(systemClock), body }, (bytes) =>
        custody.deviceSign(bytes),
      );
      const refused = await requestJson(j.url, 'POST', path, { headers, body });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('SVC_ERR_DEVICE_REVOKED');
    } finally {
      closeDatabase(db);
      custody.close();
    }

    // Alice's next mail, from the new laptop once the new key reached it, is signed by the new key; bob takes it.
    await expect.poll(async () => expectOk(await a.request('GET', `/v1/did/${alice.did_aw}/key`)).current_did_key, WAIT).toBe(rotated.new_did);
    const mail = { subject: words('with a new key'), body: words('still alice') };
    await expect
      .poll(async () => (await a.request('POST', '/v1/messages', { token: alice.api_key, body: { to_address: 'b.test/bob', ...mail } })).status, WAIT)
      .toBe(200);
    await expect
      .poll(async () => (await inboxOf(b, bob.api_key)).find((m) => m.subject === mail.subject), WAIT)
      .toMatchObject({ from_did: rotated.new_did, signature_status: 'verified', from_address: 'a.test/alice' });
  });
});
