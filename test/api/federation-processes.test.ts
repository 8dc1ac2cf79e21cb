/**
 * Federation between two `svc-node serve` processes (separate data dirs, real HTTP on loopback):
 * mail and chat both ways; then mail sent while the receiving node is down, the sending node
 * killed with SIGKILL with the mail still in its outbox, both restarted: the mail arrives exactly
 * once.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFilePath } from '../../server/node-file.ts';
import { startServe, type ServeProcess } from '../support/cli.ts';

const WAIT = { timeout: 40_000, interval: 100 };

interface Node {
  dataDir: string;
  port: number;
  url: string;
  process: ServeProcess | null;
}

const nodes: Node[] = [];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function newNode(): Promise<Node> {
  const port = await freePort();
  const node: Node = { dataDir: mkdtempSync(join(tmpdir(), 'svc-node-federation-')), port, url: `http://127.0.0.1:${port}`, process: null };
  nodes.push(node);
  await start(node);
  return node;
}

async function start(node: Node): Promise<void> {
  node.process = await startServe(['--data', node.dataDir, '--port', String(node.port)]);
}

async function call(node: Node, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<any> {
  const token = options.token ?? (JSON.parse(readFileSync(nodeFilePath(node.dataDir), 'utf8')) as { owner_token: string }).owner_token;
  const response = await fetch(`${node.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** A namespace, a project bound to it, and one persistent identity with an address there. */
async function identityOn(node: Node, domain: string, name: string): Promise<{ api_key: string }> {
  await call(node, 'POST', '/v1/node/namespaces', { body: { domain } });
  const project = await call(node, 'POST', '/v1/node/projects', { body: { slug: name, namespace: domain } });
  return call(node, 'POST', '/v1/workspaces/init', { token: project.api_key, body: { lifetime: 'persistent', name } });
}

afterAll(async () => {
  for (const node of nodes) {
    await node.process?.stop();
    rmSync(node.dataDir, { recursive: true, force: true });
  }
});

describe('two node processes', { timeout: 120_000 }, () => {
  it('exchange mail and chat, and deliver mail exactly once across the receiver being down and the sender being killed', async () => {
    const a = await newNode();
    const b = await newNode();
    const alice = await identityOn(a, 'a.test', 'alice');
    const bob = await identityOn(b, 'b.test', 'bob');
    await call(a, 'POST', '/v1/node/peers', { body: { domain: 'b.test', url: b.url } });
    await call(b, 'POST', '/v1/node/peers', { body: { domain: 'a.test', url: a.url } });

    // Both ways while both are up.
    const hello = await call(b, 'POST', '/v1/messages', { token: bob.api_key, body: { to_address: 'a.test/alice', body: 'hello alice' } });
    await expect.poll(async () => (await call(a, 'GET', '/v1/messages/inbox', { token: alice.api_key })).messages.map((m: any) => m.message_id), WAIT).toContain(hello.message_id);

    // Chat both ways: Alice starts it, Bob answers in his copy of the session.
    const chat = await call(a, 'POST', '/v1/chat/sessions', { token: alice.api_key, body: { to_addresses: ['b.test/bob'], message: 'chat across nodes?' } });
    const bobSession = async () => (await call(b, 'GET', '/v1/chat/sessions', { token: bob.api_key })).sessions.find((s: any) => s.participant_addresses.includes('a.test/alice'));
    await expect.poll(bobSession, WAIT).toBeDefined();
    const answer = await call(b, 'POST', `/v1/chat/sessions/${(await bobSession()).session_id}/messages`, { token: bob.api_key, body: { body: 'yes, across nodes' } });
    await expect
      .poll(async () => (await call(a, 'GET', `/v1/chat/sessions/${chat.session_id}/messages`, { token: alice.api_key })).messages.map((m: any) => m.message_id), WAIT)
      .toContain(answer.message_id);

    // The receiver goes down; the mail waits in the sender's outbox.
    await b.process!.stop('SIGTERM');
    b.process = null;
    const sent = await call(a, 'POST', '/v1/messages', { token: alice.api_key, body: { to_address: 'b.test/bob', subject: 'Outage', body: 'sent while you were down' } });
    expect(sent.status).toBe('queued');
    const outbound = async () => (await call(a, 'GET', '/v1/messages/outbound', { token: alice.api_key })).messages.find((m: any) => m.message_id === sent.message_id);
    await expect.poll(async () => (await outbound())?.attempts ?? 0, WAIT).toBeGreaterThanOrEqual(1);
    expect((await outbound()).status).toBe('queued');

    // The sender is killed outright with the mail still queued, then both come back.
    await a.process!.stop('SIGKILL');
    a.process = null;
    await start(a);
    await start(b);

    await expect.poll(async () => (await outbound())?.status, WAIT).toBe('delivered');
    const inbox = (await call(b, 'GET', '/v1/messages/inbox?limit=100', { token: bob.api_key })).messages;
    expect(inbox.filter((m: any) => m.message_id === sent.message_id)).toHaveLength(1);
    expect(inbox.find((m: any) => m.message_id === sent.message_id)).toMatchObject({ from_address: 'a.test/alice', body: 'sent while you were down', origin: 'remote' });
  });
});
