/**
 * Two linked devices of one node staying in step, over real HTTP on loopback: A (the desktop,
 * reachable) and J (a laptop that joined it, which asks). bob is on node B. New mail reaches A and
 * shows on J within seconds; what alice does on J (reads, archives, adds a contact) shows on A; an
 * identity made on A arrives on J with its key, so J signs as it; what happens while one of them is
 * down arrives when it is back; and a revoked device receives nothing more.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { expectOk } from '../support/expect.ts';
import { inInbox, inboxOf, sendMail } from '../support/mail-between.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { requestJson, startTestNode, type TestNode } from '../support/node.ts';
import { asOwnerApp } from '../support/teams.ts';

const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
const WAIT = { timeout: 10_000, interval: 50 };
const SYNC = { deviceSyncWaitMs: 3_000 };
const words = (what: string): string => `${what} ${randomBytes(6).toString('hex')}`;

const root = mkdtempSync(join(tmpdir(), 'svc-device-sync-'));
const aDir = join(root, 'a');
const jDir = join(root, 'laptop');

let a: TestNode;
let b: TestNode;
let j: TestNode;
let aPort: number;
let project: any;
let alice: any;
let bob: any;

beforeAll(async () => {
  a = await startTestNode({ dataDir: aDir, outbox: FAST_OUTBOX, ...SYNC });
  b = await startTestNode({ outbox: FAST_OUTBOX });
  aPort = Number(new URL(a.url).port);
  await createNodeNamespace(a, 'a.test');
  await createNodeNamespace(b, 'b.test');
  project = await createProject(a, 'pa', 'a.test');
  alice = await createIdentity(a, project.api_key, persistent('alice'));
  bob = await createIdentity(b, (await createProject(b, 'pb', 'b.test')).api_key, persistent('bob'));
  expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: b.url }), 201);
  expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: a.url }), 201);
  const link = expectOk(await a.owner('POST', '/v1/node/devices/link'), 201);
  const joined = await runCli(['device', 'join', link.url, link.code, '--data', jDir, '--name', 'Laptop', '--json']);
  if (joined.code !== 0) throw new Error(joined.stderr);
  j = await startTestNode({ dataDir: jDir, outbox: FAST_OUTBOX, ...SYNC });
});

afterAll(async () => {
  await j.stop();
  await a.stop();
  await b.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('two linked devices', { timeout: 60_000 }, () => {
  it('new mail that reaches one device shows on the other within seconds, opened', async () => {
    const mail = { subject: words('to alice'), body: words('hello both') };
    const id = await sendMail(b, bob.api_key, { to_address: 'a.test/alice', ...mail });
    await expect.poll(() => inInbox(a, alice.api_key, id), WAIT).toBeDefined();
    await expect.poll(() => inInbox(j, alice.api_key, id), WAIT).toMatchObject({ ...mail, end_to_end: true, signature_status: 'verified' });
  });

  it('what alice does on the laptop shows on the desktop: read, archived, a new contact', async () => {
    const id = await sendMail(b, bob.api_key, { to_address: 'a.test/alice', subject: words('read me'), body: 'x' });
    await expect.poll(() => inInbox(j, alice.api_key, id), WAIT).toBeDefined();
    expectOk(await j.request('POST', `/v1/messages/${id}/ack`, { token: alice.api_key }));
    await expect.poll(async () => (await inInbox(a, alice.api_key, id))?.read_at ?? null, WAIT).not.toBeNull();
    expectOk(await j.request('POST', `/v1/messages/${id}/archive`, { token: alice.api_key }));
    await expect.poll(async () => (await inInbox(a, alice.api_key, id)) ?? null, WAIT).toBeNull();
    const contact = expectOk(await j.request('POST', '/v1/contacts', { token: alice.api_key, body: { contact_address: 'b.test/bob', label: 'Bob' } }));
    await expect
      .poll(async () => (expectOk(await a.request('GET', '/v1/contacts', { token: alice.api_key })).contacts as any[]).map((c) => c.contact_id), WAIT)
      .toContain(contact.contact_id);
  });

  it('an identity made on the desktop arrives on the laptop with its key: the laptop signs as it, and bob verifies', async () => {
    const carol = await createIdentity(a, project.api_key, persistent('carol'));
    await expect.poll(async () => (await j.request('GET', '/v1/auth/introspect', { token: carol.api_key })).status, WAIT).toBe(200);
    const mail = { subject: words('from carol on the laptop'), body: 'signed here' };
    // Sent once its key has arrived too (the keys travel with the pull that follows the change).
    await expect
      .poll(async () => (await j.request('POST', '/v1/messages', { token: carol.api_key, body: { to_address: 'b.test/bob', ...mail } })).status, WAIT)
      .toBe(200);
    await expect
      .poll(async () => (await inboxOf(b, bob.api_key)).find((m) => m.subject === mail.subject), WAIT)
      .toMatchObject({ from_did: carol.did_key, signature_status: 'verified' });
    // What the laptop sent is in Sent on the desktop too, delivered (by the laptop: the desktop never sends it again).
    await expect
      .poll(
        async () => (expectOk(await a.request('GET', '/v1/messages/outbound', { token: carol.api_key })).messages as any[]).map((m) => [m.subject, m.status]),
        WAIT,
      )
      .toEqual([[mail.subject, 'delivered']]);
    const sent = expectOk(await a.request('GET', '/v1/messages/sent?limit=10', { token: carol.api_key })).messages as any[];
    expect(sent.map((m) => m.subject)).toEqual([mail.subject]);
  });

  it('what happened while the desktop was down arrives when it is back, both ways', async () => {
    await a.stop({ keepData: true });
    const onLaptop = expectOk(await j.request('POST', '/v1/contacts', { token: alice.api_key, body: { contact_address: 'b.test/dave', label: 'Dave' } }));
    a = await startTestNode({ dataDir: aDir, port: aPort, outbox: FAST_OUTBOX, ...SYNC });
    const mail = { subject: words('after the restart'), body: 'x' };
    const id = await sendMail(b, bob.api_key, { to_address: 'a.test/alice', ...mail });
    await expect.poll(() => inInbox(j, alice.api_key, id), { ...WAIT, timeout: 20_000 }).toMatchObject(mail);
    await expect
      .poll(async () => (expectOk(await a.request('GET', '/v1/contacts', { token: alice.api_key })).contacts as any[]).map((c) => c.contact_id), {
        ...WAIT,
        timeout: 20_000,
      })
      .toContain(onLaptop.contact_id);
  });

  it('a document given a version on each device while apart: each keeps its line, both read it, nothing is lost', async () => {
    const team = expectOk(await a.owner('POST', '/v1/node/teams', { name: 'crew', domain: 'a.test' }), 201);
    const docs = (t: TestNode, method: string, path: string, json?: unknown) =>
      asOwnerApp(t, team.team_id, method, path, { surface: 'docs', ...(json === undefined ? {} : { json }) });
    // A new version is raw Markdown, signed by the node as the team's owner member, as the app sends it.
    const append = async (t: TestNode, markdown: string) => {
      const path = '/v1/documents/plan/versions';
      const signed = expectOk(await t.owner('POST', `/v1/node/teams/${team.team_id}/sign`, { method: 'POST', path, surface: 'docs', body: markdown }));
      return requestJson(signed.url, 'POST', '', { headers: { ...signed.headers, 'content-type': 'text/markdown; charset=utf-8' }, raw: markdown });
    };
    expectOk(await docs(a, 'POST', '/v1/documents', { slug: 'plan', title: 'Plan', body: '# Plan\n\nFirst.' }), 201);
    await expect.poll(async () => (await docs(j, 'GET', '/v1/documents/plan')).status, WAIT).toBe(200);
    // Apart: the laptop is off while the desktop writes; then the desktop is off while the laptop writes.
    await j.stop({ keepData: true });
    expectOk(await append(a, '# Plan\n\nFrom the desktop.'), 201);
    await a.stop({ keepData: true });
    j = await startTestNode({ dataDir: jDir, outbox: FAST_OUTBOX, ...SYNC });
    expectOk(await append(j, '# Plan\n\nFrom the laptop.'), 201);
    a = await startTestNode({ dataDir: aDir, port: aPort, outbox: FAST_OUTBOX, ...SYNC });
    // Back in step for what follows (a mail crosses), each still reads its own line, whole.
    const mail = { subject: words('after the documents'), body: 'x' };
    const id = await sendMail(b, bob.api_key, { to_address: 'a.test/alice', ...mail });
    await expect.poll(() => inInbox(j, alice.api_key, id), { ...WAIT, timeout: 20_000 }).toMatchObject(mail);
    expect(expectOk(await docs(a, 'GET', '/v1/documents/plan')).body).toContain('From the desktop.');
    expect(expectOk(await docs(j, 'GET', '/v1/documents/plan')).body).toContain('From the laptop.');
    for (const t of [a, j]) {
      const versions = expectOk(await docs(t, 'GET', '/v1/documents/plan/versions')) as { version_number: number }[];
      expect(versions.map((v) => v.version_number).sort()).toEqual([1, 2]);
    }
  });

  it('a revoked device receives nothing more', async () => {
    const laptop = (expectOk(await a.owner('GET', '/v1/node/devices')).devices as any[]).find((d) => d.name === 'Laptop');
    expectOk(await a.owner('DELETE', `/v1/node/devices/${laptop.device_id}`));
    const id = await sendMail(b, bob.api_key, { to_address: 'a.test/alice', subject: words('after revoking'), body: 'x' });
    await expect.poll(() => inInbox(a, alice.api_key, id), WAIT).toBeDefined();
    // Long enough for several of its long polls, each refused now.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await inInbox(j, alice.api_key, id)).toBeUndefined();
  });
});
