/**
 * The peer listener's connections, each attack performed for real against a running
 * node, with caps and timeouts lowered through StartNodeOptions so a few hundred connections
 * suffice (test/reliability/peer-connections.reliability.ts floods the default caps with ~20,000):
 * - half-open requests from one address beyond its cap are closed at accept, unread; with the
 *   listener's total reached, new clients are refused while the loopback listener answers at once;
 * - a half-open request gets a 408 at the header timeout, a trickled body at the request timeout,
 *   an idle keep-alive connection is closed, and each gives its slot back; a quiet event stream
 *   still lives to its deadline;
 * - behind the tunnel, every peer arrives through the SSH server, yet each originator has its own
 *   rate-limit bucket and connection cap, and a direct connection cannot pass for one.
 * Distinct clients are distinct loopback source addresses (127.0.0.x), as the SSH server sees them.
 */
import { performance } from 'node:perf_hooks';
import net from 'node:net';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { halfOpen, halfOpenMany, type HalfOpen } from '../support/half-open.ts';
import { rawExchange, rawRequest } from '../support/http.ts';
import { createIdentity, createProject } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn } from '../support/sse.ts';
import { rawKeyOf, startSshServer, type TestSshServer } from '../support/ssh-server.ts';

const WAIT = { timeout: 10_000, interval: 20 };
/** One whole request on a connection of its own, from `from`. */
const get = (url: string, from: string, headers: Record<string, string> = {}) =>
  rawRequest(url, 'GET', '/v1/blueprints', { localAddress: from, headers: { connection: 'close', ...headers } });

const held: HalfOpen[] = [];
afterEach(() => {
  for (const connection of held.splice(0)) connection.socket.destroy();
});
/** Half-open requests the test holds until it ends. */
async function hold(url: string, from: string, count: number): Promise<HalfOpen[]> {
  const opened = await halfOpenMany(url, from, count);
  held.push(...opened);
  return opened;
}
const closedOf = (connections: HalfOpen[]) => connections.filter((c) => c.isClosed());
const openOf = (connections: HalfOpen[]) => connections.filter((c) => !c.isClosed());

describe('connection caps on the peer listener', () => {
  let t: TestNode;
  let peerUrl: string;
  beforeAll(async () => {
    t = await startTestNode({ publicPort: 0, peerConnections: { perClient: 8, total: 24 } });
    peerUrl = t.node.info.public_url as string;
    return () => t.stop();
  });

  it('closes half-open requests from one address beyond its cap at accept, without a byte, and serves other addresses', async () => {
    const flood = await hold(peerUrl, '127.0.0.2', 100);
    await expect.poll(() => closedOf(flood).length, WAIT).toBe(92);
    // Refused before any parsing: not even an error response was written.
    for (const { answer } of await Promise.all(closedOf(flood).map((c) => c.closed))) expect(answer).toBe('');
    expect(openOf(flood)).toHaveLength(8);
    expect((await get(peerUrl, '127.0.0.3')).status).toBe(200);

    // A slot comes back when its connection closes.
    for (const connection of openOf(flood)) connection.socket.destroy();
    await expect.poll(async () => (await get(peerUrl, '127.0.0.2')).status, WAIT).toBe(200);
  });

  it('refuses every new client once the listener holds its total, while the loopback listener answers at once', async () => {
    const flood = [...(await hold(peerUrl, '127.0.0.11', 8)), ...(await hold(peerUrl, '127.0.0.12', 8)), ...(await hold(peerUrl, '127.0.0.13', 8))];
    const extra = await hold(peerUrl, '127.0.0.14', 8);
    await expect.poll(() => closedOf(extra).length, WAIT).toBe(8);
    expect(openOf(flood)).toHaveLength(24);
    expect((await extra[0]!.closed).answer).toBe('');
    await expect(get(peerUrl, '127.0.0.15')).rejects.toThrow();

    const started = performance.now();
    expect(expectOk(await t.owner('GET', '/v1/node/info')).node_id).toBe(t.node.nodeId);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('timeouts on the peer listener', () => {
  const timeouts = { headersMs: 1_000, requestMs: 2_000, keepAliveMs: 300, idleMs: 1_500, checkEveryMs: 100 };
  let t: TestNode;
  let peerUrl: string;
  beforeAll(async () => {
    t = await startTestNode({ publicPort: 0, peerConnections: { perClient: 2, total: 64 }, peerTimeouts: timeouts });
    peerUrl = t.node.info.public_url as string;
    return () => t.stop();
  });

  it('answers a half-open request with a JSON 408 at the header timeout, and its slot is free again', async () => {
    const [first, second] = await hold(peerUrl, '127.0.0.4', 2);
    const third = await halfOpen(peerUrl, '127.0.0.4');
    held.push(third);
    expect((await third.closed).answer).toBe('');
    for (const { answer, afterMs } of await Promise.all([first!.closed, second!.closed])) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ detail: 'Request timed out', code: 'SVC_ERR_REQUEST_TIMEOUT' });
      expect(afterMs).toBeGreaterThanOrEqual(timeouts.headersMs - 100);
      expect(afterMs).toBeLessThan(8_000);
    }
    expect((await get(peerUrl, '127.0.0.4')).status).toBe(200);
  });

  it('cuts a request whose body still trickles in at the request timeout', async () => {
    const socket = net.connect({ port: Number(new URL(peerUrl).port), host: '127.0.0.1', localAddress: '127.0.0.5' });
    socket.on('error', () => {});
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = performance.now();
    socket.write('POST /v1/federation/messages HTTP/1.1\r\nHost: node.example\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    // A byte every 100 ms: never idle, never done.
    const drip = setInterval(() => socket.write(' '), 100);
    try {
      await new Promise((resolve) => socket.once('close', resolve));
    } finally {
      clearInterval(drip);
    }
    const elapsed = performance.now() - started;
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1\.1 408 /);
    expect(elapsed).toBeGreaterThanOrEqual(timeouts.requestMs - 100);
    expect(elapsed).toBeLessThan(8_000);
  });

  it('closes a keep-alive connection left idle after its response', async () => {
    const socket = net.connect({ port: Number(new URL(peerUrl).port), host: '127.0.0.1', localAddress: '127.0.0.6' });
    socket.on('error', () => {});
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /v1/blueprints HTTP/1.1\r\nHost: node.example\r\n\r\n');
    await expect.poll(() => answer, WAIT).toMatch(/^HTTP\/1\.1 200 [\s\S]*keep-alive/i);
    const answeredAt = performance.now();
    await new Promise((resolve) => socket.once('close', resolve));
    // Node grants one second beyond the advertised keep-alive timeout.
    expect(performance.now() - answeredAt).toBeLessThan(timeouts.keepAliveMs + 1_000 + 3_000);
  });

  it('keeps a quiet event stream open past the request and idle timeouts, until its own deadline', async () => {
    const project = await createProject(t, 'peer-streams');
    const identity = await createIdentity(t, project.api_key, { alias: 'listener' });
    const opened = performance.now();
    const response = await connectSse(`${peerUrl}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(4))}`, { token: identity.api_key });
    const stream = response.stream!;
    expect((await stream.next()).event).toBe('connected');
    await stream.untilEnd(10_000);
    expect(performance.now() - opened).toBeGreaterThan(3_000);
  });
});

describe('behind the tunnel', () => {
  const tunnelTimeouts = { headersMs: 4_000, requestMs: 8_000, keepAliveMs: 300, idleMs: 8_000, checkEveryMs: 100 };
  let t: TestNode;
  let ssh: TestSshServer;
  let tunnelUrl: string;
  let directUrl: string;
  beforeAll(async () => {
    t = await startTestNode({
      publicPort: 0,
      tunnelBackoff: { initialMs: 20, maxMs: 80 },
      // A token back every 50 s: no refill can blur the counts below, however slow the machine.
      peerRateLimit: { burst: 5, perSecond: 0.02 },
      peerConnections: { perClient: 4, total: 64 },
      peerTimeouts: tunnelTimeouts,
    });
    directUrl = t.node.info.public_url as string;
    return () => t.stop();
  });
  beforeAll(async () => {
    ssh = await startSshServer(rawKeyOf(expectOk(await t.owner('GET', '/v1/node/tunnel')).public_key));
    return () => ssh.close();
  });
  beforeAll(async () => {
    expectOk(await t.owner('PUT', '/v1/node/tunnel', { host: '127.0.0.1', port: ssh.port, username: 'svc', remote_port: 0, host_key_sha256: ssh.fingerprint }));
    expectOk(await t.owner('POST', '/v1/node/tunnel/start'));
    await vi.waitFor(async () => expect(expectOk(await t.owner('GET', '/v1/node/tunnel')).status.state).toBe('up'), WAIT);
    tunnelUrl = expectOk(await t.owner('GET', '/v1/node/tunnel')).status.public_url;
  });

  it('gives each originator its own rate-limit bucket: a noisy peer gets 429s, another still gets 200s', async () => {
    for (let i = 0; i < 5; i++) expect((await get(tunnelUrl, '127.0.0.2')).status).toBe(200);
    const refused = await get(tunnelUrl, '127.0.0.2');
    expectRefusal(refused, 429, /^Too many requests from 127\.0\.0\.2;/, 'SVC_ERR_RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) expect((await get(tunnelUrl, '127.0.0.3')).status).toBe(200);
  });

  it('caps the connections of each originator, refusing the rest before their channel opens', async () => {
    const flood = await hold(tunnelUrl, '127.0.0.4', 10);
    await expect.poll(() => closedOf(flood).length, WAIT).toBe(6);
    for (const { answer } of await Promise.all(closedOf(flood).map((c) => c.closed))) expect(answer).toBe('');
    expect(openOf(flood)).toHaveLength(4);
    expect((await get(tunnelUrl, '127.0.0.5')).status).toBe(200);
  });

  it('times tunneled connections out like direct ones: a half-open request gets its 408, an idle keep-alive connection closes', async () => {
    const [waiting] = await hold(tunnelUrl, '127.0.0.7', 1);
    const { answer, afterMs } = await waiting!.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(tunnelTimeouts.headersMs - 100);

    const socket = net.connect({ port: Number(new URL(tunnelUrl).port), host: '127.0.0.1', localAddress: '127.0.0.7' });
    socket.on('error', () => {});
    let reply = '';
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /v1/blueprints HTTP/1.1\r\nHost: node.example\r\n\r\n');
    await expect.poll(() => reply, WAIT).toMatch(/^HTTP\/1\.1 200 [\s\S]*keep-alive/i);
    const answeredAt = performance.now();
    await new Promise((resolve) => socket.once('close', resolve));
    expect(performance.now() - answeredAt).toBeLessThan(tunnelTimeouts.keepAliveMs + 1_000 + 3_000);
  });

  it('lets no direct connection pass for an originator: forwarding headers and a PROXY line count for nothing', async () => {
    expect((await get(tunnelUrl, '127.0.0.6')).status).toBe(200);
    const claims = { 'x-forwarded-for': '127.0.0.6', forwarded: 'for=127.0.0.6', 'x-real-ip': '127.0.0.6' };
    for (let i = 0; i < 5; i++) expect((await get(directUrl, '127.0.0.1', claims)).status).toBe(200);
    expectRefusal(await get(directUrl, '127.0.0.1', claims), 429, /^Too many requests from 127\.0\.0\.1;/, 'SVC_ERR_RATE_LIMITED');
    const proxied = await rawExchange(directUrl, 'PROXY TCP4 127.0.0.6 127.0.0.1 40000 80\r\nGET /v1/blueprints HTTP/1.1\r\nHost: node.example\r\n\r\n');
    expect(proxied).toMatch(/^HTTP\/1\.1 400 /);
    // The originator's own bucket was never touched: its four remaining tokens are all there.
    for (let i = 0; i < 4; i++) expect((await get(tunnelUrl, '127.0.0.6')).status).toBe(200);
    expect((await get(tunnelUrl, '127.0.0.6')).status).toBe(429);
  });
});
