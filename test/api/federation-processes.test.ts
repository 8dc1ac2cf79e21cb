/**
 * Federation between two `svc-node serve` processes (separate data dirs, real HTTP on loopback):
 * mail and chat both ways; then mail sent while the receiving node is down, the sending node
 * killed with SIGKILL with the mail still in its outbox, both restarted: the mail arrives exactly
 * once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startServedNode, type ServedNode } from '../support/served-node.ts';

const WAIT = { timeout: 40_000, interval: 100 };

const nodes: ServedNode[] = [];

async function newNode(): Promise<ServedNode> {
  const node = await startServedNode({ prefix: 'svc-node-federation-' });
  nodes.push(node);
  return node;
}

/** A call that must succeed; the owner's token unless another is given. */
async function call(node: ServedNode, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<any> {
  const response = await node.request(method, path, { token: options.token ?? node.ownerToken, body: options.body });
  if (response.status < 200 || response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A namespace, a project bound to it, and one persistent identity with an address there. */
async function identityOn(node: ServedNode, domain: string, name: string): Promise<{ api_key: string }> {
  await call(node, 'POST', '/v1/node/namespaces', { body: { domain } });
  const project = await call(node, 'POST', '/v1/node/projects', { body: { slug: name, namespace: domain } });
  return call(node, 'POST', '/v1/workspaces/init', { token: project.api_key, body: { lifetime: 'persistent', name } });
}

afterAll(async () => {
  for (const node of nodes) await node.dispose();
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
    await expect
      .poll(async () => (await call(a, 'GET', '/v1/messages/inbox', { token: alice.api_key })).messages.map((m: any) => m.message_id), WAIT)
      .toContain(hello.message_id);

    // Chat both ways: Alice starts it, Bob answers in his copy of the session.
    const chat = await call(a, 'POST', '/v1/chat/sessions', { token: alice.api_key, body: { to_addresses: ['b.test/bob'], message: 'chat across nodes?' } });
    const bobSession = async () =>
      (await call(b, 'GET', '/v1/chat/sessions', { token: bob.api_key })).sessions.find((s: any) => s.participant_addresses.includes('a.test/alice'));
    await expect.poll(bobSession, WAIT).toBeDefined();
    const answer = await call(b, 'POST', `/v1/chat/sessions/${(await bobSession()).session_id}/messages`, {
      token: bob.api_key,
      body: { body: 'yes, across nodes' },
    });
    await expect
      .poll(
        async () => (await call(a, 'GET', `/v1/chat/sessions/${chat.session_id}/messages`, { token: alice.api_key })).messages.map((m: any) => m.message_id),
        WAIT,
      )
      .toContain(answer.message_id);

    // The receiver goes down; the mail waits in the sender's outbox.
    await b.stop('SIGTERM');
    const sent = await call(a, 'POST', '/v1/messages', {
      token: alice.api_key,
      body: { to_address: 'b.test/bob', subject: 'Outage', body: 'sent while you were down' },
    });
    expect(sent.status).toBe('queued');
    const outbound = async () =>
      (await call(a, 'GET', '/v1/messages/outbound', { token: alice.api_key })).messages.find((m: any) => m.message_id === sent.message_id);
    await expect.poll(async () => (await outbound())?.attempts ?? 0, WAIT).toBeGreaterThanOrEqual(1);
    expect((await outbound()).status).toBe('queued');

    // The sender is killed outright with the mail still queued, then both come back.
    await a.stop('SIGKILL');
    await a.start();
    await b.start();

    await expect.poll(async () => (await outbound())?.status, WAIT).toBe('delivered');
    const inbox = (await call(b, 'GET', '/v1/messages/inbox?limit=100', { token: bob.api_key })).messages;
    expect(inbox.filter((m: any) => m.message_id === sent.message_id)).toHaveLength(1);
    expect(inbox.find((m: any) => m.message_id === sent.message_id)).toMatchObject({
      from_address: 'a.test/alice',
      body: 'sent while you were down',
      origin: 'remote',
    });
  });
});
