/**
 * Linking a second device, end to end over real HTTP on loopback: node A holds alice (an address
 * on her domain, end-to-end encrypted mail with bob on node B, a team document with history).
 * `svc-node device link` on A prints a code and URL; `svc-node device join` makes a new data dir
 * from them, and a node started on it holds the same identities (the same did:key and did:svc,
 * the agent's API key working), every mail opened, the document with its history; its send as
 * alice verifies at B. Both devices list each other. A code works once and only with its own
 * proof; a revoked device is refused at once, whatever it signs.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingTimestamp, systemClock } from '../../server/clock.ts';
import { toBase64Url } from '../../server/crypto/encoding.ts';
import { DeviceKeys, newDeviceSecret } from '../../server/custody/device-key.ts';
import { deviceRequestHeaders } from '../../server/devices/device-request.ts';
import { codeIdOf, joinBytes, linkKeyOf, mac } from '../../server/devices/join-proof.ts';
import { runCli } from '../support/cli.ts';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk } from '../support/expect.ts';
import { arrivedMail, inboxOf, sendMail } from '../support/mail-between.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { requestJson, startTestNode, type TestNode } from '../support/node.ts';
import { asOwnerApp } from '../support/teams.ts';

const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
const WAIT = { timeout: 15_000, interval: 25 };
const words = (what: string): string => `${what} ${randomBytes(6).toString('hex')}`;

const root = mkdtempSync(join(tmpdir(), 'svc-device-link-'));
const aDir = join(root, 'a');
const jDir = join(root, 'laptop');

let a: TestNode;
let b: TestNode;
let j: TestNode;
let alice: any;
let bob: any;
let docs: DocsClient;
let nodeId: string;
let linked: { url: string; code: string };
let joined: any;

const mail = { toBob: { subject: words('to bob'), body: words('first') }, toAlice: { subject: words('to alice'), body: words('answer') }, ids: [] as string[] };

/** A join made by hand (what `device join` does first), for the refusals the CLI never sends. */
function handJoin(code: string, device = new DeviceKeys(newDeviceSecret()), overrides: Record<string, unknown> = {}) {
  const linkKey = linkKeyOf(code);
  const fields = {
    code_id: codeIdOf(linkKey),
    name: 'by hand',
    sign_key: device.signKey,
    box_key: toBase64Url(device.boxKey),
    url: null,
    timestamp: signingTimestamp(systemClock),
  };
  const bytes = joinBytes(fields);
  return { device, body: { ...fields, proof: mac(linkKey, bytes), signature: toBase64Url(device.sign(bytes)), ...overrides } };
}

function signedGet(node: TestNode, path: string, deviceId: string, device: DeviceKeys) {
  const headers = deviceRequestHeaders({ deviceId, method: 'GET', path, timestamp: signingTimestamp(systemClock), body: undefined }, (bytes) =>
    device.sign(bytes),
  );
  return requestJson(node.url, 'GET', path, { headers });
}

beforeAll(async () => {
  a = await startTestNode({ dataDir: aDir, outbox: FAST_OUTBOX });
  b = await startTestNode({ outbox: FAST_OUTBOX });
  nodeId = expectOk(await a.owner('GET', '/v1/node/info')).node_id;
  await createNodeNamespace(a, 'a.test');
  await createNodeNamespace(b, 'b.test');
  alice = await createIdentity(a, (await createProject(a, 'pa', 'a.test')).api_key, persistent('alice'));
  bob = await createIdentity(b, (await createProject(b, 'pb', 'b.test')).api_key, persistent('bob'));
  expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: b.url }), 201);
  expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: a.url }), 201);
});

afterAll(async () => {
  // Unset when a test before the join failed.
  await (j as TestNode | undefined)?.stop();
  await a.stop();
  await b.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('linking a second device', { timeout: 60_000 }, () => {
  it('before: mail both ways, end to end encrypted, a team document with two versions, and this computer’s settings', async () => {
    // What belongs to this computer: its backup schedule (a folder here) and its tunnel (an SSH account for this machine).
    expectOk(await a.owner('PUT', '/v1/node/backups/schedule', { to: join(root, 'a-backups'), every_hours: 24 }));
    expectOk(await a.owner('PUT', '/v1/node/tunnel', { host: 'tunnel.invalid', username: 'alice', remote_port: 8443 }));
    const first = await sendMail(a, alice.api_key, { to_address: 'b.test/bob', ...mail.toBob });
    await arrivedMail(b, bob.api_key, first);
    const answer = await sendMail(b, bob.api_key, { to_address: 'a.test/alice', ...mail.toAlice });
    await arrivedMail(a, alice.api_key, answer);
    mail.ids.push(first, answer);
    docs = await addDocsMember(a, { team: 'crew' });
    expectOk(await docs.create('plan', '# Plan\n\nThe first draft.'), 201);
    expectOk(await docs.append('plan', '# Plan\n\nThe second draft.'), 201);
  });

  it('lists this device alone before any link', async () => {
    const { devices } = expectOk(await a.owner('GET', '/v1/node/devices'));
    expect(devices).toHaveLength(1);
    expect(devices[0]).toMatchObject({ this_device: true, revoked_at: null, sign_key: expect.stringMatching(/^did:key:z/) });
  });

  it('`device link` prints a one-time code and the URL to join at', async () => {
    const made = await runCli(['device', 'link', '--data', aDir, '--json']);
    expect(made.code, made.stderr).toBe(0);
    linked = JSON.parse(made.stdout);
    expect(linked).toMatchObject({ url: a.url, code: expect.stringMatching(/^svc_link_[0-9a-f]{32}$/), expires_at: expect.any(String) });
    expect((linked as any).command).toBe(`svc-node device join ${a.url} ${linked.code} --data NEW_DIR`);
  });

  it('refuses a wrong code and writes nothing', async () => {
    const wrong = await runCli(['device', 'join', linked.url, `svc_link_${'0'.repeat(32)}`, '--data', jDir, '--json']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/link code is unknown, already used or expired/);
    expect(existsSync(jDir)).toBe(false);
    expect(readdirSync(root).filter((name) => name.includes('joining'))).toEqual([]);
  });

  it('`device join` makes a new data dir that holds the same node', async () => {
    const result = await runCli(['device', 'join', linked.url, linked.code, '--data', jDir, '--name', 'Laptop', '--json']);
    expect(result.code, result.stderr).toBe(0);
    joined = JSON.parse(result.stdout);
    expect(joined).toMatchObject({
      data_dir: jDir,
      node_id: nodeId,
      device_id: expect.stringMatching(/^dev_/),
      name: 'Laptop',
      linked_to: { url: a.url },
      identities: 1,
    });
    expect(joined.keys).toBeGreaterThan(1);
    // The copy the linking device kept for the join is gone once the new device has it.
    await expect.poll(() => readdirSync(join(aDir, 'device-links')).length, WAIT).toBe(0);
  });

  it('works once: the same code again is refused', async () => {
    const again = await runCli(['device', 'join', linked.url, linked.code, '--data', join(root, 'again'), '--json']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/link code is unknown, already used or expired/);
    expect(existsSync(join(root, 'again'))).toBe(false);
  });

  it('runs as the same identities: did:key, did:svc, the API key, every mail opened, the document with its history', async () => {
    j = await startTestNode({ dataDir: jDir, outbox: FAST_OUTBOX });
    expect(expectOk(await j.owner('GET', '/v1/node/info')).node_id).toBe(nodeId);
    expect(expectOk(await j.request('GET', `/v1/did/${alice.did_aw}/key`)).current_did_key).toBe(alice.did_key);
    expect(expectOk(await j.request('GET', '/v1/auth/introspect', { token: alice.api_key }))).toMatchObject({ agent_id: alice.agent_id });
    expect((await inboxOf(j, alice.api_key)).find((m) => m.message_id === mail.ids[1])).toMatchObject({
      ...mail.toAlice,
      end_to_end: true,
      signature_status: 'verified',
    });
    const sent = expectOk(await j.request('GET', '/v1/messages/sent?limit=50', { token: alice.api_key })).messages as any[];
    expect(sent.find((m) => m.message_id === mail.ids[0])).toMatchObject(mail.toBob);
    // The team's key came too: the app on the new device acts in the team as on the first one.
    const versions = expectOk(await asOwnerApp(j, docs.teamId, 'GET', '/v1/documents/plan/versions', { surface: 'docs' })) as { version_number: number }[];
    expect(versions.map((v) => v.version_number).sort()).toEqual([1, 2]);
    expect(expectOk(await asOwnerApp(j, docs.teamId, 'GET', '/v1/documents/plan', { surface: 'docs' })).body).toContain('The second draft.');
  });

  it('sends as alice from the new device, and bob verifies it as hers', async () => {
    const fromLaptop = { subject: words('from the laptop'), body: words('same alice') };
    const id = await sendMail(j, alice.api_key, { to_address: 'b.test/bob', ...fromLaptop });
    expect(await arrivedMail(b, bob.api_key, id)).toMatchObject({ ...fromLaptop, end_to_end: true, signature_status: 'verified', from_did: alice.did_key });
  });

  it('each device lists both, and knows which one it is', async () => {
    const onA = expectOk(await a.owner('GET', '/v1/node/devices')).devices as any[];
    const onJ = expectOk(await j.owner('GET', '/v1/node/devices')).devices as any[];
    expect(onA).toHaveLength(2);
    expect(onA.find((d) => d.device_id === joined.device_id)).toMatchObject({ name: 'Laptop', this_device: false, last_seen_at: expect.any(String) });
    expect(onJ.find((d) => d.device_id === joined.device_id)).toMatchObject({ this_device: true });
    expect(onJ.find((d) => d.device_id === joined.linked_to.device_id)).toMatchObject({ this_device: false, url: a.url });
    const listed = await runCli(['device', 'list', '--data', jDir]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/Laptop\s+\(this device\)/);
  });

  it('leaves out what is the first computer’s own: its backup schedule and its tunnel', async () => {
    expect(expectOk(await j.owner('GET', '/v1/node/backups')).schedule).toBeNull();
    expect(expectOk(await j.owner('GET', '/v1/node/tunnel')).config).toBeNull();
    // The first device keeps its own.
    expect(expectOk(await a.owner('GET', '/v1/node/backups')).schedule).toMatchObject({ every_hours: 24 });
    expect(expectOk(await a.owner('GET', '/v1/node/tunnel')).config).toMatchObject({ host: 'tunnel.invalid' });
  });
});

describe('the refusals of the wire between devices', { timeout: 60_000 }, () => {
  it('a join that does not prove the code, or is not signed by its key, is refused and uses nothing', async () => {
    const code = expectOk(await a.owner('POST', '/v1/node/devices/link'), 201).code as string;
    const forged = handJoin(code, undefined, { proof: toBase64Url(randomBytes(32)) });
    expect((await requestJson(a.url, 'POST', '/v1/devices/join', { body: forged.body })).status).toBe(403);
    const unsigned = handJoin(code, undefined, { signature: toBase64Url(randomBytes(64)) });
    expect((await requestJson(a.url, 'POST', '/v1/devices/join', { body: unsigned.body })).status).toBe(401);
    // The code still works for a proper join.
    const proper = handJoin(code);
    const answer = expectOk(await requestJson(a.url, 'POST', '/v1/devices/join', { body: proper.body }));
    expect(answer.device_id).toMatch(/^dev_/);
  });

  it('a revoked device is refused at once, and an unknown one never served', async () => {
    const code = expectOk(await a.owner('POST', '/v1/node/devices/link'), 201).code as string;
    const { device, body } = handJoin(code);
    const answer = expectOk(await requestJson(a.url, 'POST', '/v1/devices/join', { body }));
    const manifest = `/v1/devices/snapshot/manifests/${answer.snapshot.backup_id}`;
    expect((await signedGet(a, manifest, answer.device_id, device)).status).toBe(200);
    // Another key naming the same device is not it.
    const impostor = new DeviceKeys(newDeviceSecret());
    expect((await signedGet(a, manifest, answer.device_id, impostor)).status).toBe(401);
    expect((await signedGet(a, manifest, 'dev_000000000000000000000000', device)).status).toBe(401);

    const revoked = await runCli(['device', 'revoke', answer.device_id, '--data', aDir, '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ device_id: answer.device_id, revoked_at: expect.any(String) });
    const refused = await signedGet(a, manifest, answer.device_id, device);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('SVC_ERR_DEVICE_REVOKED');
    expect(existsSync(join(aDir, 'device-links', answer.device_id))).toBe(false);
  });

  it('a device cannot revoke itself', async () => {
    const self = (expectOk(await a.owner('GET', '/v1/node/devices')).devices as any[]).find((d) => d.this_device);
    const refused = await a.owner('DELETE', `/v1/node/devices/${self.device_id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('SVC_ERR_DEVICE_IS_THIS_ONE');
  });
});
