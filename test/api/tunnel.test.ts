/**
 * The tunnel end to end on loopback (DESIGN §8): a real node, its owner API, and an in-process SSH
 * server standing in for the user's host. The node shows its custody-held key as an
 * authorized_keys line; once configured and started, the peer listener answers through the SSH
 * server's forwarded port (the spec's endpoints, never the owner API or the UI), the tunnel's URL
 * is the node's public URL while it is up, the tunnel reconnects after the SSH server drops it and
 * comes back after a node restart, and stop takes it all down.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn } from '../support/sse.ts';
import { rawKeyOf, startSshServer, type TestSshServer } from '../support/ssh-server.ts';

const FAST = { initialMs: 20, maxMs: 80 };
const WAIT = { timeout: 10_000, interval: 25 };

let t: TestNode;
let ssh: TestSshServer;
let dataDir: string;

const tunnel = async () => expectOk(await t.owner('GET', '/v1/node/tunnel'));
const state = async () => (await tunnel()).status.state as string;

beforeAll(async () => {
  t = await startTestNode({ tunnelBackoff: FAST });
  dataDir = t.dataDir;
  return () => t.stop();
});
beforeAll(async () => {
  const view = await tunnel();
  ssh = await startSshServer(rawKeyOf(view.public_key));
  return () => ssh.close();
});

describe('the tunnel', () => {
  it('starts unconfigured and stopped, showing the key to authorise', async () => {
    const view = await tunnel();
    expect(view).toMatchObject({ provider: 'ssh', config: null, status: { state: 'stopped', public_url: null } });
    expect(view.public_key).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA[A-Za-z0-9+/]+=* svc-node tunnel$/);
    // The same key every time: custody made it once.
    expect((await tunnel()).public_key).toBe(view.public_key);
    expectRefusal(await t.owner('POST', '/v1/node/tunnel/start'), 409, /Configure the tunnel first/, 'SVC_ERR_TUNNEL_NOT_CONFIGURED');
  });

  it('refuses a bad configuration and keeps none', async () => {
    expectValidation(await t.owner('PUT', '/v1/node/tunnel', { host: 'ssh.example', username: 'svc', remote_port: 70000 }), 'remote_port');
    expectValidation(await t.owner('PUT', '/v1/node/tunnel', { host: 'ssh.example', username: 'bad user', remote_port: 0 }), 'username');
    expectValidation(
      await t.owner('PUT', '/v1/node/tunnel', { host: 'ssh.example', username: 'svc', remote_port: 0, host_key_sha256: 'nope' }),
      'host_key_sha256',
    );
    expectValidation(await t.owner('PUT', '/v1/node/tunnel', { host: 'ssh.example', username: 'svc', remote_port: 0, public_url: 'ftp://x' }), 'public_url');
    expect((await tunnel()).config).toBeNull();
  });

  it('replaces the whole configuration on PUT; null clears an optional field', async () => {
    const set = { host: 'ssh.example.test', username: 'svc', remote_port: 8443, public_url: 'https://node.example.test', host_key_sha256: ssh.fingerprint };
    expect(expectOk(await t.owner('PUT', '/v1/node/tunnel', set)).config).toMatchObject({
      public_url: 'https://node.example.test',
      host_key_sha256: ssh.fingerprint,
      port: 22,
    });
    const cleared = expectOk(await t.owner('PUT', '/v1/node/tunnel', { ...set, public_url: null, host_key_sha256: null }));
    expect(cleared.config).toMatchObject({ public_url: null, host_key_sha256: null });
  });

  it('exposes the peer listener through the SSH server, and its URL becomes the public URL', async () => {
    const feed = (await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(10))}`, { token: t.node.ownerToken })).stream!;
    try {
      expect((await feed.next()).event).toBe('connected');
      const configured = expectOk(
        await t.owner('PUT', '/v1/node/tunnel', { host: '127.0.0.1', port: ssh.port, username: 'svc', remote_port: 0, host_key_sha256: ssh.fingerprint }),
      );
      expect(configured.config).toMatchObject({
        host: '127.0.0.1',
        port: ssh.port,
        username: 'svc',
        remote_port: 0,
        host_key_sha256: ssh.fingerprint,
        public_url: null,
      });
      expectOk(await t.owner('POST', '/v1/node/tunnel/start'));
      await expect.poll(state, WAIT).toBe('up');
      expect(await feed.next()).toMatchObject({ event: 'tunnel_changed' });
    } finally {
      feed.close();
    }
    const url = (await tunnel()).status.public_url as string;
    expect(url).toBe(`http://127.0.0.1:${ssh.forwardedPort()}`);
    expect(expectOk(await t.owner('GET', '/v1/node/info')).public_url).toBe(url);

    // The spec's endpoints answer through the tunnel; the owner API and the UI do not exist there.
    const catalog = await fetch(`${url}/v1/blueprints`);
    expect(catalog.status).toBe(200);
    expect((await fetch(`${url}/v1/node/info`, { headers: { authorization: `Bearer ${t.node.ownerToken}` } })).status).toBe(404);
    expect((await fetch(`${url}/v1/node/peers`, { headers: { authorization: `Bearer ${t.node.ownerToken}` } })).status).toBe(404);
    expect((await fetch(`${url}/ui/`)).status).toBe(404);
  });

  it('reconnects after the SSH server drops it', async () => {
    const before = ssh.connectionCount();
    ssh.dropClients();
    await expect.poll(async () => ssh.connectionCount() > before && (await state()) === 'up', WAIT).toBe(true);
    const url = (await tunnel()).status.public_url as string;
    expect((await fetch(`${url}/v1/blueprints`)).status).toBe(200);
  });

  it('comes back when the node restarts', async () => {
    await t.stop({ keepData: true });
    t = await startTestNode({ dataDir, tunnelBackoff: FAST });
    await expect.poll(state, WAIT).toBe('up');
    expect((await fetch(`${(await tunnel()).status.public_url}/v1/blueprints`)).status).toBe(200);
  });

  it('stops: the forward closes, the public URL goes, and it stays stopped', async () => {
    const url = (await tunnel()).status.public_url as string;
    const stopped = expectOk(await t.owner('POST', '/v1/node/tunnel/stop'));
    expect(stopped.status).toMatchObject({ state: 'stopped', public_url: null });
    expect(expectOk(await t.owner('GET', '/v1/node/info')).public_url).toBeNull();
    await expect(fetch(`${url}/v1/blueprints`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    const connections = ssh.connectionCount();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ssh.connectionCount()).toBe(connections);
  });
});
