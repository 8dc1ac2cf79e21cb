/**
 * The outbound client's kept-alive connections, against real loopback servers that count the TCP
 * connections reaching them and keep the server side of each, so "reused", "cut" and "closed" are
 * measured where the other node sees them. Only DNS is a table.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { json, remoteServers, stream, type RemoteHandler, type RemoteServer } from '../../test/support/remote-server.ts';
import { staticDnsResolver } from '../dns/resolver.ts';
import { RemoteClient, type RemoteClientOptions, type RemoteRequest, type RemoteTarget } from './remote-client.ts';

const servers = remoteServers();
const clients: RemoteClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await servers.closeAll();
});

const KiB = 1024;
const GET: RemoteRequest = { method: 'GET', path: '/', maxBytes: KiB };
const POST: RemoteRequest = { method: 'POST', path: '/', json: '{"a":1}', maxBytes: KiB };
const peer = (s: RemoteServer): RemoteTarget => ({ url: s.url, via: 'peer' });

/** A client closed after the test, on a resolver that sends every `*.test` name used here to loopback. */
function client(options: Partial<RemoteClientOptions> = {}): RemoteClient {
  const names = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`n${i}.test`, ['127.0.0.1']]));
  const made = new RemoteClient(staticDnsResolver({}, { ...names, 'node.lan.test': ['127.0.0.1'] }), options);
  clients.push(made);
  return made;
}

async function drained(request: IncomingMessage): Promise<void> {
  for await (const _ of request);
}

const ok: RemoteHandler = async (request, response) => {
  await drained(request);
  json(response, 200, { ok: true });
};

interface Counted {
  s: RemoteServer;
  /** Server sides of the connections that carried a request and are still open. */
  open(): number;
}

/** A server whose connections can be counted while open. */
async function counted(handler: RemoteHandler = ok): Promise<Counted> {
  const sockets = new Set<Socket>();
  const s = await servers.start((request, response) => {
    sockets.add(request.socket);
    return handler(request, response);
  });
  return { s, open: () => [...sockets].filter((socket) => !socket.destroyed).length };
}

/**
 * Answers the first request on each connection and closes the connection on any later one,
 * unanswered: what a client meets when the server's keep-alive timeout fires just as it reuses
 * the socket. With `once`, only the server's very first request is answered at all.
 */
function closesReused(once = false): RemoteHandler {
  const served = new WeakSet<Socket>();
  let answered = 0;
  return async (request, response) => {
    if (served.has(request.socket) || (once && answered > 0)) return request.socket.destroy();
    served.add(request.socket);
    answered++;
    await ok(request, response);
  };
}

describe('kept-alive connections', () => {
  it('sends sequential requests to one origin over one connection', async () => {
    const { s, open } = await counted();
    const c = client();
    for (let i = 0; i < 5; i++) {
      expect((await c.request(peer(s), { ...GET, path: `/v1/x/${i}` })).status).toBe(200);
      expect((await c.request(peer(s), POST)).status).toBe(200);
    }
    expect(s.requests).toHaveLength(10);
    expect(s.connections).toBe(1);
    expect(open()).toBe(1);
    expect(c.pooledOrigins).toBe(1);
  });

  it('opens at most the per-origin concurrency of connections, and later requests reuse them', async () => {
    const { s } = await counted(async (request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      await ok(request, response);
    });
    const c = client({ perOriginConcurrency: 3 });
    const answers = await Promise.all(Array.from({ length: 9 }, () => c.request(peer(s), GET)));
    expect(answers.map((a) => a.status)).toEqual(Array(9).fill(200));
    expect(s.maxOpen).toBe(3);
    expect(s.connections).toBe(3);
  });

  it("never lends an owner-set peer's connection to a DNS-found node of the same origin", async () => {
    const { s, open } = await counted();
    const c = client();
    const origin = `http://node.lan.test:${s.port}`;
    expect((await c.request({ url: origin, via: 'peer' }, GET)).status).toBe(200);
    expect(open()).toBe(1);
    // The pooled socket reaches loopback, which a DNS-found node may not: it must not be used.
    await expect(c.request({ url: origin, via: 'dns' }, GET)).rejects.toMatchObject({ kind: 'refused-address' });
    expect(s.connections).toBe(1);
    expect(s.requests).toHaveLength(1);
    // And the peer's connection is still there for the peer.
    expect((await c.request({ url: origin, via: 'peer' }, GET)).status).toBe(200);
    expect(s.connections).toBe(1);
  });

  it('cuts the connection of an answer over the cap, never pooling it', async () => {
    const { s, open } = await counted((request, response) => {
      if (request.url === '/declared') return response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * KiB) }).write('[');
      if (request.url === '/streamed') return stream(s, response, 256 * KiB);
      return ok(request, response);
    });
    const c = client();
    for (const [i, path] of ['/declared', '/streamed'].entries()) {
      expect((await c.request(peer(s), GET)).status).toBe(200);
      await expect(c.request(peer(s), { ...GET, path })).rejects.toMatchObject({ kind: 'too-large' });
      await expect.poll(open).toBe(0);
      // The next request needs a connection of its own.
      expect((await c.request(peer(s), GET)).status).toBe(200);
      expect(s.connections).toBe(i + 2);
    }
  });

  it('applies the connect timeout to new connections only: a reused one may take longer to answer', async () => {
    const { s } = await counted(async (request, response) => {
      if (request.url === '/slow') await new Promise((resolve) => setTimeout(resolve, 400));
      await ok(request, response);
    });
    const c = client({ connectTimeoutMs: 150, timeoutMs: 5_000 });
    expect((await c.request(peer(s), GET)).status).toBe(200);
    expect((await c.request(peer(s), { ...GET, path: '/slow' })).status).toBe(200);
    expect(s.connections).toBe(1);
  });

  it('closes a connection left unused for the idle time, and forgets an origin with none left', async () => {
    const one = await counted();
    const two = await counted();
    const c = client({ idleSocketMs: 100 });
    expect((await c.request(peer(one.s), GET)).status).toBe(200);
    await expect.poll(one.open).toBe(0);
    expect((await c.request(peer(two.s), GET)).status).toBe(200);
    expect(c.pooledOrigins).toBe(1);
  });

  it('keeps connections for a bounded number of origins, dropping the least recently used', async () => {
    const { s, open } = await counted();
    const c = client({ pooledOrigins: 4 });
    const at = (i: number): RemoteTarget => ({ url: `http://n${i}.test:${s.port}`, via: 'peer' });
    for (let i = 0; i < 10; i++) {
      expect((await c.request(at(i), GET)).status).toBe(200);
      expect(c.pooledOrigins).toBeLessThanOrEqual(4);
    }
    expect(s.connections).toBe(10);
    await expect.poll(open).toBe(4);
    // The most recent origins still have theirs; the first one's was closed.
    expect((await c.request(at(9), GET)).status).toBe(200);
    expect(s.connections).toBe(10);
    expect((await c.request(at(0), GET)).status).toBe(200);
    expect(s.connections).toBe(11);
  });

  it('close() ends every connection, idle or carrying a request, and later requests open new ones', async () => {
    const one = await counted();
    // '/held' is never answered.
    const two = await counted((request, response) => (request.url === '/held' ? undefined : ok(request, response)));
    const c = client();
    await Promise.all([...Array.from({ length: 4 }, () => c.request(peer(one.s), GET)), c.request(peer(two.s), GET)]);
    const held = c.request(peer(two.s), { ...GET, path: '/held' });
    await expect.poll(() => two.s.open).toBe(1);
    expect(one.open() + two.open()).toBe(5);
    c.close();
    await expect(held).rejects.toMatchObject({ kind: 'unreachable' });
    await expect.poll(() => one.open() + two.open()).toBe(0);
    expect(c.pooledOrigins).toBe(0);
    expect((await c.request(peer(one.s), GET)).status).toBe(200);
    expect(one.s.connections).toBe(5);
  });
});

describe('a kept-alive connection the other node closed', () => {
  it('fails a GET on it, which is sent once more on a fresh connection', async () => {
    const { s } = await counted(closesReused());
    const c = client();
    expect((await c.request(peer(s), GET)).status).toBe(200);
    expect((await c.request(peer(s), GET)).status).toBe(200);
    expect(s.requests).toHaveLength(3);
    expect(s.connections).toBe(2);
  });

  it('sends a POST again only when its caller says it is idempotent', async () => {
    const { s } = await counted(closesReused());
    const c = client();
    expect((await c.request(peer(s), POST)).status).toBe(200);
    const error = await c.request(peer(s), POST).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'RemoteError', kind: 'unreachable', message: 'unreachable' });
    expect([s.requests.length, s.connections]).toEqual([2, 1]);
    expect((await c.request(peer(s), POST)).status).toBe(200);
    expect((await c.request(peer(s), { ...POST, idempotent: true })).status).toBe(200);
    // The third went on a fresh connection; the fourth met it closed too, and was sent again.
    expect([s.requests.length, s.connections]).toEqual([5, 3]);
  });

  it('sends it again once only', async () => {
    const { s } = await counted(closesReused(true));
    const c = client();
    expect((await c.request(peer(s), GET)).status).toBe(200);
    await expect(c.request(peer(s), GET)).rejects.toMatchObject({ kind: 'unreachable' });
    // The request on the reused connection, then one on a fresh connection, and no third.
    expect(s.requests).toHaveLength(3);
    expect(s.connections).toBe(2);
  });
});
