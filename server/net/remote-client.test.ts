/**
 * The outbound client against real loopback servers; only DNS is a table (a system edge).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { json, remoteServers, stream, type RemoteServer } from '../../test/support/remote-server.ts';
import { staticDnsResolver, type DnsResolver } from '../dns/resolver.ts';
import { answerJson, RemoteClient, type RemoteTarget } from './remote-client.ts';
import type { RemoteError } from './remote-error.ts';

const servers = remoteServers();
const server = servers.start;
afterEach(() => servers.closeAll());

const peer = (s: RemoteServer): RemoteTarget => ({ url: s.url, via: 'peer' });
const KiB = 1024;

/** The RemoteError a call fails with. */
async function failure(call: Promise<unknown>): Promise<RemoteError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'the request should have failed').not.toBeNull();
  expect((error as Error).name).toBe('RemoteError');
  return error as RemoteError;
}

describe('RemoteClient', () => {
  it('GETs JSON from a peer on loopback, and POSTs a JSON body', async () => {
    const s = await server(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += String(chunk);
      json(response, 200, { method: request.method, accept: request.headers.accept, type: request.headers['content-type'] ?? null, body });
    });
    const client = new RemoteClient(staticDnsResolver());
    expect(await client.getJson(peer(s), '/v1/x?y=1', KiB)).toEqual({ method: 'GET', accept: 'application/json', type: null, body: '' });
    const answer = await client.request(peer(s), { method: 'POST', path: '/v1/x', json: '{"a":1}', maxBytes: KiB });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/json');
    expect(answerJson(answer)).toMatchObject({ method: 'POST', type: 'application/json', body: '{"a":1}' });
    expect(s.requests).toEqual(['GET /v1/x?y=1', 'POST /v1/x']);
  });

  it("sends the caller's headers (a signed envelope, a token), never over its own content type", async () => {
    const s = await server(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += String(chunk);
      json(response, 200, { method: request.method, token: request.headers.authorization ?? null, type: request.headers['content-type'] ?? null, body });
    });
    const client = new RemoteClient(staticDnsResolver());
    const headers = { authorization: 'Bearer t', 'content-type': 'text/plain' };
    const put = await client.request(peer(s), { method: 'PUT', path: '/v1/x', json: '{"a":1}', headers, maxBytes: KiB });
    expect(answerJson(put)).toEqual({ method: 'PUT', token: 'Bearer t', type: 'application/json', body: '{"a":1}' });
    const removed = await client.request(peer(s), { method: 'DELETE', path: '/v1/x', headers, maxBytes: KiB });
    expect(answerJson(removed)).toMatchObject({ method: 'DELETE', token: 'Bearer t', body: '' });
  });

  it("reads the answer's Retry-After as seconds from now, null when there is none", async () => {
    const retryAfter: Record<string, string> = { '/seconds': '7', '/date': new Date(Date.now() + 30_000).toUTCString(), '/garbage': 'soon' };
    const s = await server((request, r) => {
      const value = retryAfter[request.url ?? ''];
      r.writeHead(429, value === undefined ? {} : { 'retry-after': value }).end();
    });
    const client = new RemoteClient(staticDnsResolver());
    const after = async (path: string) => (await client.request(peer(s), { method: 'GET', path, maxBytes: KiB })).retryAfterSeconds;
    expect(await after('/seconds')).toBe(7);
    // Half a minute from when the date was written, in whole seconds, less what the test took since.
    const fromDate = await after('/date');
    expect(fromDate).toBeGreaterThan(20);
    expect(fromDate).toBeLessThanOrEqual(30);
    expect(await after('/garbage')).toBeNull();
    expect(await after('/none')).toBeNull();
  });

  it('never connects to a non-public address for a DNS-found node, whatever form the address takes', async () => {
    const s = await server((_q, r) => json(r, 200, { secret: 'internal' }));
    const dns = staticDnsResolver(
      {},
      { 'node.evil.test': ['127.0.0.1'], 'mapped.evil.test': ['::ffff:127.0.0.1'], 'mixed.evil.test': ['10.0.0.1', '127.0.0.1'] },
    );
    const client = new RemoteClient(dns);
    for (const host of ['node.evil.test', 'mapped.evil.test', 'mixed.evil.test']) {
      for (const protocol of ['http', 'https']) {
        const error = await failure(client.getJson({ url: `${protocol}://${host}:${s.port}`, via: 'dns' }, '/', KiB));
        expect(error.kind).toBe('refused-address');
        expect(error.message).toBe('refused: its address is not a public one');
      }
    }
    // An IP literal is never looked up, so it is checked before connecting.
    for (const literal of ['127.0.0.1', '[::1]']) {
      expect((await failure(client.getJson({ url: `http://${literal}:${s.port}`, via: 'dns' }, '/', KiB))).kind).toBe('refused-address');
    }
    expect(s.connections).toBe(0);
  });

  it('judges the address each connection resolves to, so a name that rebinds to loopback is refused then', async () => {
    const s = await server((_q, r) => json(r, 200, {}));
    const answers = [['1.1.1.1'], ['127.0.0.1']];
    const rebinding: DnsResolver = {
      resolveTxt: async () => [],
      lookup: async () => (answers.shift() ?? []).map((address) => ({ address, family: 4 as const })),
    };
    const client = new RemoteClient(rebinding, { connectTimeoutMs: 300 });
    const target: RemoteTarget = { url: `http://rebind.test:${s.port}`, via: 'dns' };
    // First a public answer: the client tries it (this machine may not reach it; that is fine).
    expect(['unreachable', 'timed-out']).toContain((await failure(client.getJson(target, '/', KiB))).kind);
    // Then the same name answers loopback: refused, and nothing reaches the loopback server.
    expect((await failure(client.getJson(target, '/', KiB))).kind).toBe('refused-address');
    expect(answers).toEqual([]);
    expect(s.connections).toBe(0);
  });

  it('lets an owner-set peer resolve anywhere, loopback included', async () => {
    const s = await server((_q, r) => json(r, 200, { ok: true }));
    const client = new RemoteClient(staticDnsResolver({}, { 'node.lan.test': ['127.0.0.1'] }));
    expect(await client.getJson({ url: `http://node.lan.test:${s.port}`, via: 'peer' }, '/', KiB)).toEqual({ ok: true });
    expect((await failure(client.getJson({ url: `http://node.lan.test:${s.port}`, via: 'dns' }, '/', KiB))).kind).toBe('refused-address');
    expect(s.connections).toBe(1);
  });

  it('says unreachable, in its own words, for a name that does not resolve or a closed port', async () => {
    const client = new RemoteClient(staticDnsResolver());
    const unresolved = await failure(client.getJson({ url: 'https://node.nowhere.test', via: 'dns' }, '/', KiB));
    expect([unresolved.kind, unresolved.message]).toEqual(['unreachable', 'unreachable']);
    const closed = await server(() => undefined);
    await closed.close();
    const refused = await failure(client.getJson({ url: closed.url, via: 'peer' }, '/', KiB));
    expect([refused.kind, refused.message]).toEqual(['unreachable', 'unreachable']);
    expect(refused.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });

  it('does not follow redirects: the target never sees a request', async () => {
    const target = await server((_q, r) => json(r, 200, { db_password: 'hunter2' }));
    const s = await server((_q, r) => r.writeHead(302, { location: `${target.url}/secret` }).end());
    const error = await failure(new RemoteClient(staticDnsResolver()).getJson(peer(s), '/', KiB));
    expect(error.kind).toBe('redirected');
    expect(target.connections).toBe(0);
  });

  it('refuses an answer whose Content-Length is over the cap before reading it', async () => {
    const s = await server((_q, r) => r.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * 1024 * KiB) }).write('['));
    const started = Date.now();
    const error = await failure(new RemoteClient(staticDnsResolver()).getJson(peer(s), '/', 64 * KiB));
    expect([error.kind, error.message]).toEqual(['too-large', 'answer too large']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('cuts a streamed answer at the cap: the server gets to write little of its 256 MiB', async () => {
    const s = await server((_q, r) => stream(s, r, 256 * 1024 * KiB));
    const error = await failure(new RemoteClient(staticDnsResolver()).getJson(peer(s), '/', 64 * KiB));
    expect(error.kind).toBe('too-large');
    await expect.poll(() => s.open).toBe(0);
    // What the client read (64 KiB and a chunk) plus what the kernel's socket buffers held.
    expect(s.bytesWritten).toBeLessThan(32 * 1024 * KiB);
  });

  it('refuses response headers over 16 KiB as too large', async () => {
    const s = await server((_q, r) => r.writeHead(200, { 'x-big': 'a'.repeat(20 * KiB), 'content-type': 'application/json' }).end('{}'));
    expect((await failure(new RemoteClient(staticDnsResolver()).getJson(peer(s), '/', KiB))).kind).toBe('too-large');
  });

  it('times out a node that never answers, and one that trickles its answer', async () => {
    const silent = await server(() => undefined);
    const trickle = await server((_q, r) => {
      r.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => r.write(' '), 50);
      r.on('close', () => clearInterval(timer));
    });
    const client = new RemoteClient(staticDnsResolver(), { timeoutMs: 300 });
    for (const s of [silent, trickle]) {
      const started = Date.now();
      const error = await failure(client.getJson(peer(s), '/', KiB));
      expect([error.kind, error.message]).toEqual(['timed-out', 'timed out']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(Date.now() - started).toBeLessThan(5_000);
      await expect.poll(() => s.open).toBe(0);
    }
  });

  it('times out connecting (a lookup that never answers) before the total timeout', async () => {
    const hanging: DnsResolver = { resolveTxt: async () => [], lookup: () => new Promise(() => undefined) };
    const client = new RemoteClient(hanging, { connectTimeoutMs: 200, timeoutMs: 10_000 });
    const started = Date.now();
    expect((await failure(client.getJson({ url: 'https://slow.test', via: 'dns' }, '/', KiB))).kind).toBe('timed-out');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('caps requests per origin and in all, queues the rest, and refuses beyond the waiting line', async () => {
    const releases: (() => void)[] = [];
    const hold = (_q: unknown, r: Parameters<typeof json>[0]) => void releases.push(() => json(r, 200, {}));
    const one = await server(hold);
    const two = await server(hold);
    const client = new RemoteClient(staticDnsResolver(), { perOriginConcurrency: 2, totalConcurrency: 3, perOriginWaiting: 2, totalWaiting: 10 });
    const calls = [
      ...Array.from({ length: 5 }, () =>
        client.getJson(peer(one), '/', KiB).then(
          () => 'ok',
          (e: RemoteError) => e.kind,
        ),
      ),
      ...Array.from({ length: 2 }, () =>
        client.getJson(peer(two), '/', KiB).then(
          () => 'ok',
          (e: RemoteError) => e.kind,
        ),
      ),
    ];
    await expect.poll(() => one.open + two.open).toBe(3);
    // One's fifth request found two running and two waiting: refused at once.
    expect(await calls[4]).toBe('busy');
    while ((await Promise.race([Promise.all(calls).then(() => true), new Promise((r) => setTimeout(() => r(false), 20))])) === false)
      releases.splice(0).forEach((f) => f());
    expect(await Promise.all(calls)).toEqual(['ok', 'ok', 'ok', 'ok', 'busy', 'ok', 'ok']);
    expect(one.maxOpen).toBe(2);
    expect(one.maxOpen + two.maxOpen).toBeLessThanOrEqual(4);
    expect(one.requests.length + two.requests.length).toBe(6);
  });

  it('keeps a queued request to its own total timeout', async () => {
    const s = await server(() => undefined);
    const client = new RemoteClient(staticDnsResolver(), { perOriginConcurrency: 1, timeoutMs: 1_000 });
    const started = Date.now();
    const [first, queued] = await Promise.all([failure(client.getJson(peer(s), '/', KiB)), failure(client.getJson(peer(s), '/', KiB))]);
    expect([first.kind, queued.kind]).toEqual(['timed-out', 'timed-out']);
    // Both end near 1 s: a queued request that got a fresh timeout once the first let go would end near 2 s.
    expect(Date.now() - started).toBeLessThan(1_800);
  });

  it('refuses a path that would leave the origin', async () => {
    const s = await server((_q, r) => json(r, 200, {}));
    const client = new RemoteClient(staticDnsResolver());
    expect((await failure(client.getJson(peer(s), '//127.0.0.2/x', KiB))).kind).toBe('unreachable');
    expect((await failure(client.getJson(peer(s), 'http://127.0.0.2/x', KiB))).kind).toBe('unreachable');
    expect(s.connections).toBe(0);
  });
});

describe('answerJson', () => {
  const answer = (contentType: string, body: string) => ({ status: 200, contentType, body: Buffer.from(body), retryAfterSeconds: null });

  it('takes JSON that says it is JSON', () => {
    expect(answerJson(answer('application/json', '{"a":1}'))).toEqual({ a: 1 });
    expect(answerJson(answer('application/problem+json', '[1]'))).toEqual([1]);
  });

  it('refuses a body that is not JSON or does not say it is, in its own words', () => {
    for (const [type, body] of [
      ['text/plain', 'db_password=hunter2'],
      ['text/html', '{"a":1}'],
      ['', '{"a":1}'],
      ['application/json', 'db_password=hunter2'],
    ] as const) {
      let error: unknown;
      try {
        answerJson(answer(type, body));
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ kind: 'not-json', message: 'answer not JSON' });
    }
  });
});
