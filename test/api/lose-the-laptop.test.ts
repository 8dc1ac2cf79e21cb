/**
 * "Lose the laptop", with a recovery kit and a backup folder: node A holds alice (an address on her
 * domain) and her team's document with its history; bob is on node B. They exchange end-to-end
 * encrypted mail and chat both ways. Alice's node made a kit and a backup; then A is wiped, its
 * whole data folder gone. `svc-node kit restore --backup` makes a new data folder from the two, and
 * a node started on it at A's address has every message (each opened, as it was read before), the
 * chat, the document with every version; alice keeps her did:key and did:svc, her agent's API key
 * works, bob's next mail arrives, and alice's reply verifies at B with no change of identity.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrived, historyOf } from '../support/chat-arrivals.ts';
import { runCli } from '../support/cli.ts';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk } from '../support/expect.ts';
import { arrivedMail, inboxOf, sendMail } from '../support/mail-between.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
const PASSPHRASE = 'seven words would be better than this';
const words = (what: string): string => `${what} ${randomBytes(6).toString('hex')}`;

const root = mkdtempSync(join(tmpdir(), 'svc-lose-laptop-'));
const aDir = join(root, 'a');
const backups = join(root, 'backups');
const kitFile = join(root, 'alice.kit');

let a: TestNode;
let b: TestNode;
let alice: any;
let bob: any;
let docs: DocsClient;
let port: number;
let nodeId: string;

/** What happened before the loss, to find again after it. */
const before = {
  toBob: { subject: words('to bob'), body: words('the first mail') },
  toAlice: { subject: words('to alice'), body: words('the answer') },
  chat: [words('chat from alice'), words('chat from bob')],
  mailIds: [] as string[],
  chatIds: [] as string[],
  sessionId: '',
};

beforeAll(async () => {
  a = await startTestNode({ dataDir: aDir, outbox: FAST_OUTBOX });
  b = await startTestNode({ outbox: FAST_OUTBOX });
  port = Number(new URL(a.url).port);
  nodeId = expectOk(await a.owner('GET', '/v1/node/info')).node_id;
  await createNodeNamespace(a, 'a.test');
  await createNodeNamespace(b, 'b.test');
  alice = await createIdentity(a, (await createProject(a, 'pa', 'a.test')).api_key, persistent('alice'));
  bob = await createIdentity(b, (await createProject(b, 'pb', 'b.test')).api_key, persistent('bob'));
  expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: b.url }), 201);
  expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: a.url }), 201);
});

afterAll(async () => {
  await a.stop({ keepData: true });
  await b.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('losing the laptop, with a recovery kit and a backup folder', { timeout: 60_000 }, () => {
  it('before the loss: mail and chat both ways, a document with its history, a kit and a backup; then A is wiped', async () => {
    // Mail both ways, sealed end to end.
    const first = await sendMail(a, alice.api_key, { to_address: 'b.test/bob', ...before.toBob });
    expect(await arrivedMail(b, bob.api_key, first)).toMatchObject({ ...before.toBob, end_to_end: true });
    const answer = await sendMail(b, bob.api_key, { to_address: 'a.test/alice', ...before.toAlice });
    expect(await arrivedMail(a, alice.api_key, answer)).toMatchObject({ ...before.toAlice, end_to_end: true });
    before.mailIds.push(first, answer);
    // Chat both ways.
    const started = expectOk(
      await a.request('POST', '/v1/chat/sessions', { token: alice.api_key, body: { to_addresses: ['b.test/bob'], message: before.chat[0] } }),
    );
    const got = await arrived(b, bob.api_key, started.message_id);
    const replied = expectOk(await b.request('POST', `/v1/chat/sessions/${got.sessionId}/messages`, { token: bob.api_key, body: { body: before.chat[1] } }));
    await arrived(a, alice.api_key, replied.message_id);
    before.sessionId = started.session_id;
    before.chatIds.push(started.message_id, replied.message_id);
    // Alice's team has a document with a history.
    docs = await addDocsMember(a, { team: 'crew' });
    expectOk(await docs.create('plan', '# Plan\n\nThe first draft.'), 201);
    expectOk(await docs.append('plan', '# Plan\n\nThe second draft.'), 201);

    // The kit and a backup, as the person made them before the loss.
    const kit = expectOk(await a.owner('POST', '/v1/node/recovery-kit', { passphrase: PASSPHRASE }), 201);
    writeFileSync(kitFile, kit.kit, { mode: 0o600 });
    expectOk(await a.owner('POST', '/v1/node/backups', { to: backups }));

    // The laptop is lost: its whole data folder with it.
    await a.stop({ keepData: true });
    rmSync(aDir, { recursive: true, force: true });
  });

  it('restores a data folder from the kit and the newest backup', async () => {
    expect(existsSync(aDir)).toBe(false);
    const restored = await runCli(['kit', 'restore', kitFile, '--data', aDir, '--backup', backups, '--json'], { SVC_NODE_KIT_PASSPHRASE: PASSPHRASE });
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ data_dir: aDir, node_id: nodeId, keys_lost: 0, backup_id: expect.any(String) });
    // The restored node, on A's address.
    a = await startTestNode({ dataDir: aDir, port, outbox: FAST_OUTBOX });
    expect(a.url).toBe(`http://127.0.0.1:${port}`);
  });

  it('is the same node and the same identity: node id, did:key, did:svc, and the agent’s API key', async () => {
    expect(expectOk(await a.owner('GET', '/v1/node/info')).node_id).toBe(nodeId);
    const key = expectOk(await a.request('GET', `/v1/did/${alice.did_aw}/key`));
    expect(key.current_did_key).toBe(alice.did_key);
    expect(expectOk(await a.request('GET', '/v1/auth/introspect', { token: alice.api_key }))).toMatchObject({ agent_id: alice.agent_id });
  });

  it('has every message, each opened as before, and the chat', async () => {
    const mail = await inboxOf(a, alice.api_key);
    expect(mail.find((m) => m.message_id === before.mailIds[1])).toMatchObject({ ...before.toAlice, end_to_end: true, signature_status: 'verified' });
    const sent = expectOk(await a.request('GET', '/v1/messages/sent?limit=50', { token: alice.api_key })).messages as any[];
    expect(sent.find((m) => m.message_id === before.mailIds[0])).toMatchObject({ subject: before.toBob.subject, body: before.toBob.body });
    const chat = await historyOf(a, alice.api_key, before.sessionId);
    expect(chat.map((m) => [m.message_id, m.body])).toEqual(
      expect.arrayContaining([
        [before.chatIds[0], before.chat[0]],
        [before.chatIds[1], before.chat[1]],
      ]),
    );
  });

  it('has the document with every version', async () => {
    expect(expectOk(await docs.get('plan')).body).toContain('The second draft.');
    const versions = expectOk(await docs.request('GET', '/v1/documents/plan/versions')) as { version_number: number }[];
    expect(versions.map((v) => v.version_number).sort()).toEqual([1, 2]);
  });

  it("receives bob's next mail, and alice's reply verifies at B with no change of identity", async () => {
    const next = { subject: words('after the loss'), body: words('are you there') };
    const id = await sendMail(b, bob.api_key, { to_address: 'a.test/alice', ...next });
    expect(await arrivedMail(a, alice.api_key, id)).toMatchObject({ ...next, end_to_end: true, signature_status: 'verified' });
    const reply = { subject: words('back again'), body: words('on a new machine') };
    const back = await sendMail(a, alice.api_key, { to_address: 'b.test/bob', ...reply });
    const got = await arrivedMail(b, bob.api_key, back);
    expect(got).toMatchObject({ ...reply, end_to_end: true, signature_status: 'verified', from_did: alice.did_key, from_address: 'a.test/alice' });
    expect(got.rotation_announcement ?? null).toBeNull();
    expect(got.replacement_announcement ?? null).toBeNull();
  });
});
