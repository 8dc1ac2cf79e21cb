import { generateKeyPairSync, sign } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ForwardedConnection, type Originator } from '../http/forwarded-connection.ts';
import type { Tunnel, TunnelStatus, TunnelTarget } from './provider.ts';
import { startSshServer, type TestSshServer } from '../../test/support/ssh-server.ts';
import type { SshSigner } from './ssh-key.ts';
import { sshTunnelProvider, type SshTunnelConfig } from './ssh-tunnel.ts';

const FAST_BACKOFF = { initialMs: 20, maxMs: 80 };

/** A signer over a throwaway Ed25519 key, standing in for custody. */
function testSigner(): SshSigner {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  return { publicKey: () => raw, sign: (data) => sign(null, data, privateKey) };
}

/**
 * The stand-in for the node's peer listener: an HTTP server that takes forwarded connections in
 * process, as the node's does, and says whom it saw each one come from. `refuse()` makes it turn
 * connections away, as its connection caps would.
 */
function startPeerListener(): { target: TunnelTarget; opened: () => number; refuse: () => void; close: () => Promise<void> } {
  const server = http.createServer((request, response) => {
    response.setHeader('connection', 'close');
    response.setHeader('x-client', `${request.socket.remoteAddress}:${request.socket.remotePort}`);
    response.end('hello from the peer listener');
  });
  let refusing = false;
  let opened = 0;
  const forward = (origin: Originator, open: () => Duplex): boolean => {
    if (refusing) return false;
    opened += 1;
    server.emit('connection', new ForwardedConnection(open(), origin));
    return true;
  };
  return {
    target: { host: '127.0.0.1', port: 0, forward },
    opened: () => opened,
    refuse: () => {
      refusing = true;
    },
    close: async () => server.closeAllConnections(),
  };
}

/** One GET with no connection reuse, so nothing lingers across a dropped tunnel. */
function httpGet(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** True when something accepts TCP connections on the loopback port. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type ConfigOverride = Partial<SshTunnelConfig> | ((sshServer: TestSshServer) => Partial<SshTunnelConfig>);

async function setUp(options: { tunnelSigner?: SshSigner; config?: ConfigOverride } = {}) {
  const signer = testSigner();
  const sshServer = await startSshServer(signer.publicKey());
  cleanups.push(() => sshServer.close());
  const peer = startPeerListener();
  cleanups.push(() => peer.close());
  const provider = sshTunnelProvider(
    {
      host: '127.0.0.1',
      port: sshServer.port,
      username: 'node',
      remote_bind_host: '127.0.0.1',
      remote_port: 0,
      ...(typeof options.config === 'function' ? options.config(sshServer) : options.config),
    },
    { signer: options.tunnelSigner ?? signer, backoff: FAST_BACKOFF },
  );
  const tunnel = provider.start(peer.target);
  cleanups.push(() => tunnel.stop());
  const seen: TunnelStatus[] = [];
  tunnel.onStatus((status) => seen.push(status));
  return { sshServer, peer, provider, tunnel, seen };
}

async function waitUntilUp(tunnel: Tunnel): Promise<void> {
  await expect.poll(() => tunnel.status().state).toBe('up');
}

describe('sshTunnelProvider', () => {
  it('is the ssh provider and starts out connecting', async () => {
    const { provider, tunnel } = await setUp();
    expect(provider.kind).toBe('ssh');
    expect(tunnel.status().state).toBe('connecting');
    await waitUntilUp(tunnel);
  });

  it('serves the local peer listener on the forwarded port and reports up with http://host:port', async () => {
    const { sshServer, tunnel } = await setUp();
    await waitUntilUp(tunnel);
    const forwardedPort = sshServer.forwardedPort();
    expect(forwardedPort).toBeTypeOf('number');
    const status = tunnel.status();
    expect(status.public_url).toBe(`http://127.0.0.1:${forwardedPort}`);
    expect(status.detail).toBe(`host key ${sshServer.fingerprint} (not pinned)`);
    expect(Number.isNaN(Date.parse(status.since))).toBe(false);
    await expect(httpGet(forwardedPort ?? 0)).resolves.toEqual({ status: 200, body: 'hello from the peer listener' });
  });

  it('hands each connection over with the originator address and port the SSH server reports', async () => {
    const { sshServer, tunnel } = await setUp();
    await waitUntilUp(tunnel);
    const client = net.connect(sshServer.forwardedPort() ?? 0, '127.0.0.1');
    await once(client, 'connect');
    const localPort = client.localPort;
    const chunks: Buffer[] = [];
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    // Not half-closed: ssh2's server closes a channel outright when its socket ends.
    client.write('GET / HTTP/1.1\r\nHost: node.example\r\nConnection: close\r\n\r\n');
    await once(client, 'close');
    expect(Buffer.concat(chunks).toString()).toMatch(new RegExp(`\r\nx-client: 127\\.0\\.0\\.1:${localPort}\r\n`, 'i'));
  });

  it('refuses a connection the peer listener turns away without opening it, and the tunnel stays up', async () => {
    const { sshServer, peer, tunnel } = await setUp();
    await waitUntilUp(tunnel);
    peer.refuse();
    await expect(httpGet(sshServer.forwardedPort() ?? 0)).rejects.toThrow();
    expect(peer.opened()).toBe(0);
    expect(tunnel.status().state).toBe('up');
  });

  it('tells status listeners about each change until they unsubscribe', async () => {
    const { sshServer, tunnel, seen } = await setUp();
    const heard: string[] = [];
    const unsubscribe = tunnel.onStatus((status) => heard.push(status.state));
    await waitUntilUp(tunnel);
    expect(heard).toEqual(['up']);
    unsubscribe();
    sshServer.dropClients();
    await expect.poll(() => seen.map((status) => status.state)).toEqual(['up', 'reconnecting', 'up']);
    expect(heard).toEqual(['up']);
  });

  it('reports the configured public_url instead of the server address', async () => {
    const { tunnel } = await setUp({ config: { public_url: 'https://node.example.org' } });
    await waitUntilUp(tunnel);
    expect(tunnel.status().public_url).toBe('https://node.example.org');
  });

  it('comes up when the pinned host key fingerprint matches', async () => {
    const { sshServer, tunnel } = await setUp({ config: (server) => ({ host_key_sha256: server.fingerprint }) });
    await waitUntilUp(tunnel);
    expect(tunnel.status().detail).toBe(`host key ${sshServer.fingerprint} (pinned)`);
  });

  it('accepts a pinned fingerprint without the SHA256: prefix', async () => {
    const { tunnel } = await setUp({
      config: (server) => ({ host_key_sha256: server.fingerprint.replace(/^SHA256:/, '') }),
    });
    await waitUntilUp(tunnel);
  });

  it('fails with an authentication detail when the server refuses the key, and keeps retrying', async () => {
    const { sshServer, tunnel } = await setUp({ tunnelSigner: testSigner() });
    await expect.poll(() => tunnel.status().state).toBe('failed');
    expect(tunnel.status().detail).toMatch(/authentication refused by 127\.0\.0\.1:\d+ for user node/);
    expect(tunnel.status().public_url).toBeNull();
    await expect.poll(() => sshServer.connectionCount()).toBeGreaterThan(2);
    expect(tunnel.status().state).toBe('failed');
  });

  it('refuses a server whose host key does not match the pinned fingerprint, naming both fingerprints', async () => {
    const pinned = `SHA256:${Buffer.alloc(32).toString('base64').replace(/=+$/, '')}`;
    const { sshServer, tunnel, seen } = await setUp({ config: { host_key_sha256: pinned } });
    await expect.poll(() => tunnel.status().state).toBe('failed');
    const detail = tunnel.status().detail ?? '';
    expect(detail).toContain('host key mismatch');
    expect(detail).toContain(sshServer.fingerprint);
    expect(detail).toContain(pinned);
    expect(seen.map((status) => status.state)).not.toContain('up');
    expect(sshServer.forwardedPort()).toBeUndefined();
  });

  it('reconnects after the server drops the connection and serves the peer listener again', async () => {
    const { sshServer, tunnel, seen } = await setUp();
    await waitUntilUp(tunnel);
    const firstPort = sshServer.forwardedPort() ?? 0;
    await expect(httpGet(firstPort)).resolves.toMatchObject({ status: 200 });

    sshServer.dropClients();
    await expect.poll(() => seen.some((status) => status.state === 'reconnecting')).toBe(true);
    await waitUntilUp(tunnel);
    expect(sshServer.connectionCount()).toBe(2);
    const secondPort = sshServer.forwardedPort() ?? 0;
    expect(tunnel.status().public_url).toBe(`http://127.0.0.1:${secondPort}`);
    await expect(httpGet(secondPort)).resolves.toEqual({ status: 200, body: 'hello from the peer listener' });
  });

  it('stop() closes the forward, reports stopped and never reconnects', async () => {
    const { sshServer, tunnel } = await setUp();
    await waitUntilUp(tunnel);
    const forwardedPort = sshServer.forwardedPort() ?? 0;
    await expect(httpGet(forwardedPort)).resolves.toMatchObject({ status: 200 });

    await tunnel.stop();
    expect(tunnel.status()).toMatchObject({ state: 'stopped', public_url: null, detail: null });
    await expect.poll(() => isListening(forwardedPort)).toBe(false);
    // Several backoff periods pass without a new connection.
    await new Promise((resolve) => setTimeout(resolve, FAST_BACKOFF.maxMs * 3));
    expect(sshServer.connectionCount()).toBe(1);
    expect(tunnel.status().state).toBe('stopped');
    await expect(tunnel.stop()).resolves.toBeUndefined();
  });

  it('stop() during backoff cancels the pending retry', async () => {
    const { sshServer, tunnel } = await setUp({ tunnelSigner: testSigner() });
    await expect.poll(() => tunnel.status().state).toBe('failed');
    await tunnel.stop();
    const attempts = sshServer.connectionCount();
    await new Promise((resolve) => setTimeout(resolve, FAST_BACKOFF.maxMs * 3));
    expect(sshServer.connectionCount()).toBe(attempts);
    expect(tunnel.status().state).toBe('stopped');
  });
});
