/**
 * Federation that keeps up with a busy peer (docs/adr/0005-signed-messages-and-federation.md):
 * delivery in batches with a result per message, budgets by sending domain, and the outbox's flow
 * control per peer node. Real nodes on loopback; where a test needs a node that misbehaves in one
 * exact way (an older node, one that says 429, a slow one) it is a loopback server that answers the
 * federation routes as told and records what reached it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { FEDERATION_BATCH_MAX_MESSAGES } from '../../contract/core/federation.ts';
import { expectOk } from '../support/expect.ts';
import { signedMail } from '../support/federation.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { testKey, type TestKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { json, remoteServers, type RemoteServer } from '../support/remote-server.ts';

const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200, peerRetryMaxMs: 200 };
const WAIT = { timeout: 15_000, interval: 25 };
const servers = remoteServers();

afterAll(() => servers.closeAll());

/** A request body as JSON. */
async function bodyOf(request: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A sender's node that vouches for `<domain>/<name>` holding `keys[name]`: the address and
 * namespace lookups a receiver makes, and the address list, filtered by `?names=` as this node
 * does it, whole as a node older than the filter does, or not at all (404).
 */
function senderNode(domain: string, keys: Record<string, TestKey>, list: 'filtered' | 'whole' | 'none' = 'filtered') {
  const address = (name: string) => ({ domain, name, address: `${domain}/${name}`, current_did_key: keys[name]!.didKey });
  return servers.start((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const name = /\/addresses\/([^/]+)$/.exec(url.pathname)?.[1];
    if (name !== undefined) return keys[name] ? json(response, 200, address(name)) : json(response, 404, { detail: 'no' });
    if (url.pathname.endsWith('/addresses')) {
      if (list === 'none') return json(response, 404, { detail: 'Route not found' });
      const names = list === 'filtered' ? (url.searchParams.get('names')?.split(',') ?? []) : Object.keys(keys);
      return json(response, 200, { addresses: names.filter((n) => keys[n]).map(address) });
    }
    return json(response, 200, { domain, verification_status: 'unverified' });
  });
}

const inboxOf = async (t: TestNode, key: string) => expectOk(await t.request('GET', '/v1/messages/inbox?limit=100', { token: key })).messages as any[];

describe('POST /v1/federation/messages/batch', () => {
  let b: TestNode;
  let bob: { api_key: string };
  let zed: TestKey;
  let checks: RemoteServer;

  beforeAll(async () => {
    b = await startTestNode({
      publicPort: 0,
      peerRateLimit: { burst: 10, perSecond: 0.01 },
      domainBudget: { messages: { burst: 6, perSecond: 0.01 }, bytes: { burst: 1 << 30, perSecond: 1 << 20 } },
    });
    return () => b.stop();
  });
  beforeAll(async () => {
    await createNodeNamespace(b, 'b.test');
    const project = await createProject(b, 'pb', 'b.test');
    bob = await createIdentity(b, project.api_key, persistent('bob'));
    await createIdentity(b, project.api_key, persistent('carol'));
    zed = testKey();
    checks = await senderNode('x.test', { zed });
    expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'x.test', url: checks.url }), 201);
  });

  const batch = (messages: unknown[], url = b.url) =>
    fetch(`${url}/v1/federation/messages/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ v: 1, messages }) });

  it('answers each message on its own, in order: one bad message never holds back the rest', async () => {
    const good = signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob', body: 'batch one' });
    const forged = { ...signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob' }), body: 'altered' };
    const stranger = signedMail(zed, { from: 'x.test/zed', to: 'b.test/nobody' });
    const response = await batch([good, forged, { v: 1, kind: 'mail', message_id: 'not-a-uuid' }, good, stranger]);
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as { results: any[] };
    expect(results.map((r) => [r.message_id, r.status, r.code])).toEqual([
      [good.message_id, 'delivered', undefined],
      [forged.message_id, 'refused', 'SVC_ERR_FEDERATION_SIGNATURE_INVALID'],
      ['not-a-uuid', 'refused', 'SVC_ERR_VALIDATION'],
      [good.message_id, 'duplicate', undefined],
      [stranger.message_id, 'refused', 'SVC_ERR_RECIPIENT_NOT_FOUND'],
    ]);
    expect(results[2].detail).toMatch(/^messages\.2\./);
    expect((await inboxOf(b, bob.api_key)).filter((m) => m.body === 'batch one')).toHaveLength(1);
    // The sender was checked once, for the first message; the rest went by that check.
    expect(checks.requests.filter((r) => r.includes('/addresses/zed'))).toHaveLength(1);
  });

  it("defers what is over the sending domain's budget, and a pair's later messages behind it, with the time to come back", async () => {
    const to = (who: string, body: string) => signedMail(zed, { from: 'x.test/zed', to: `b.test/${who}`, body });
    // One of the domain's six was spent above, by the one mail stored: the duplicate and the refused
    // stranger proved nothing new, so they cost the client instead. Five remain.
    const messages = [
      to('bob', 'o1'),
      to('carol', 'o2'),
      to('bob', 'o3'),
      to('bob', 'o4'),
      to('carol', 'o5'),
      to('bob', 'o6'),
      to('carol', 'o7'),
      to('bob', 'o8'),
    ];
    const { results } = (await (await batch(messages)).json()) as { results: any[] };
    expect(results.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered', 'delivered', 'deferred', 'deferred', 'deferred']);
    expect(results[5]).toMatchObject({ code: 'SVC_ERR_RATE_LIMITED', detail: expect.stringMatching(/x\.test's delivery budget is spent/) });
    expect(results[5].retry_after).toBeGreaterThan(0);
    expect(results[6]).toMatchObject({ code: 'SVC_ERR_RATE_LIMITED', detail: expect.stringMatching(/x\.test's delivery budget is spent/) });
    // Bob's last waits behind his deferred one, whatever the budget says by then.
    expect(results[7]).toMatchObject({ detail: 'an earlier message from this sender to this recipient was deferred', retry_after: results[5].retry_after });
  });

  it('charges an anonymous client a request token per unproven message, so a batch cannot multiply a flood', async () => {
    const peerUrl = b.node.info.public_url as string;
    const strangers = Array.from({ length: 20 }, () => testKey());
    const forgedBatch = strangers.map((key, i) => ({ ...signedMail(key, { from: `x.test/s${i}`, to: 'b.test/bob' }), body: 'altered' }));
    const { results } = (await (await batch(forgedBatch, peerUrl)).json()) as { results: any[] };
    // The request took one of the ten tokens; each refused message after the first takes another.
    const refused = results.filter((r) => r.status === 'refused');
    const deferred = results.filter((r) => r.status === 'deferred');
    expect(refused).toHaveLength(10);
    expect(deferred).toHaveLength(10);
    expect(deferred[0]).toMatchObject({ code: 'SVC_ERR_RATE_LIMITED', detail: expect.stringMatching(/too many requests from this client/) });
    expect((await fetch(`${peerUrl}/v1/federation/messages/batch`, { method: 'POST' })).status).toBe(429);
  });

  it("checks a batch's new senders of one domain with one lookup, from a node with the names filter, one without it, or one without a list", async () => {
    for (const list of ['filtered', 'whole', 'none'] as const) {
      const domain = `${list}.test`;
      const keys = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`s${i}`, testKey()]));
      const node = await senderNode(domain, keys, list);
      expectOk(await b.owner('POST', '/v1/node/peers', { domain, url: node.url }), 201);
      // One each: this node's budget per sending domain is six messages.
      const messages = Object.entries(keys).map(([name, key]) => signedMail(key, { from: `${domain}/${name}`, to: 'b.test/carol', body: name }));
      const { results } = (await (await batch(messages)).json()) as { results: any[] };
      expect(
        results.map((r) => r.status),
        list,
      ).toEqual(messages.map(() => 'delivered'));
      const asked = node.requests.map((r) => r.replace(/^GET /, ''));
      const namespaceAsked = asked.filter((path) => path === `/v1/namespaces/${domain}`);
      const oneByOne = asked.filter((path) => /\/addresses\/s\d$/.test(path));
      expect(namespaceAsked, list).toHaveLength(1);
      if (list === 'none') expect(oneByOne).toHaveLength(5);
      else {
        expect(
          asked.filter((path) => path.startsWith(`/v1/namespaces/${domain}/addresses?names=`)),
          list,
        ).toHaveLength(1);
        expect(oneByOne, list).toEqual([]);
      }
    }
  });

  it(`refuses a batch of more than ${FEDERATION_BATCH_MAX_MESSAGES} messages or none, whole`, async () => {
    const many = Array.from({ length: FEDERATION_BATCH_MAX_MESSAGES + 1 }, () => signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob' }));
    expect((await batch(many)).status).toBe(422);
    expect((await batch([])).status).toBe(422);
  });
});

describe('POST /v1/federation/messages (one message, as older nodes send)', () => {
  it("charges a proven sender's domain rather than the client's request budget, and anonymous posts still the client's", async () => {
    const c = await startTestNode({ publicPort: 0, peerRateLimit: { burst: 3, perSecond: 0.01 } });
    onTestFinished(() => c.stop());
    await createNodeNamespace(c, 'c.test');
    await createIdentity(c, (await createProject(c, 'pc', 'c.test')).api_key, persistent('bob'));
    const zed = testKey();
    expectOk(await c.owner('POST', '/v1/node/peers', { domain: 'x.test', url: (await senderNode('x.test', { zed })).url }), 201);
    const post = (body: unknown) =>
      fetch(`${c.node.info.public_url}/v1/federation/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // Three tokens: the first mail's request pays one and its second question to the sender's node
    // another (its sender is not proven yet); the rest give their request's token back.
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await post(signedMail(zed, { from: 'x.test/zed', to: 'c.test/bob', body: `single ${i}` }))).status);
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 200));
    const forged = [];
    for (let i = 0; i < 4; i++) forged.push((await post({ ...signedMail(testKey(), { from: 'x.test/zed', to: 'c.test/bob' }), body: 'altered' })).status);
    expect(forged).toEqual([403, 429, 429, 429]);
  });
});

describe('the outbox, per peer node', () => {
  let a: TestNode;
  let alice: { api_key: string };
  let ann: { api_key: string };

  beforeAll(async () => {
    a = await startTestNode({ outbox: FAST_OUTBOX });
    return () => a.stop();
  });
  beforeAll(async () => {
    await createNodeNamespace(a, 'a.test');
    const project = await createProject(a, 'pa', 'a.test');
    alice = await createIdentity(a, project.api_key, persistent('alice'));
    ann = await createIdentity(a, project.api_key, persistent('ann'));
  });

  // The receivers here are scripted loopback servers that publish no encryption keys: these sends
  // name plaintext, as a send to such a node must (the outbox's sealing is tested beside it).
  const send = async (key: string, to: string, body: string) =>
    expectOk(await a.request('POST', '/v1/messages', { token: key, body: { to_address: to, body, content_mode: 'legacy_plaintext_v1' } })).message_id as string;
  const outbound = async (key: string) => expectOk(await a.request('GET', '/v1/messages/outbound', { token: key })).messages as any[];
  const peer = async (domain: string, url: string) => expectOk(await a.owner('POST', '/v1/node/peers', { domain, url }), 201);
  /** Sends `count` mails from alice to `domain` while its node is unknown, so they are all queued before its peer entry appears. */
  const queue = async (domain: string, count: number, who = 'bob') => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await send(alice.api_key, `${domain}/${who}`, `m${i}`));
    return ids;
  };
  const statusesOf = async (ids: string[]) => {
    const rows = new Map((await outbound(alice.api_key)).map((m) => [m.message_id, m]));
    return ids.map((id) => rows.get(id)?.status);
  };
  /** Answers a batch: each message's result from `decide`. */
  const results = (messages: any[], decide: (m: any, i: number) => Record<string, unknown>) => ({
    results: messages.map((m, i) => ({ message_id: m.message_id, ...decide(m, i) })),
  });

  it('delivers many messages in few requests, and follows what each result says', async () => {
    const seen: string[] = [];
    const receiver = await servers.start(async (request, response) => {
      const { messages } = await bodyOf(request);
      seen.push(...messages.map((m: any) => m.body));
      json(
        response,
        200,
        results(messages, (m) =>
          m.body === 'm3'
            ? { status: 'refused', code: 'X', detail: 'Refused: \u001b[31mno such\u0000 person' }
            : m.body === 'm5'
              ? { status: 'duplicate' }
              : { status: 'delivered' },
        ),
      );
    });
    const ids = await queue('many.test', 70);
    await peer('many.test', receiver.url);
    await expect.poll(() => statusesOf(ids), WAIT).toEqual(ids.map((_, i) => (i === 3 ? 'bounced' : 'delivered')));
    expect(receiver.requests).toEqual(['POST /v1/federation/messages/batch', 'POST /v1/federation/messages/batch']);
    expect(seen).toEqual(ids.map((_, i) => `m${i}`));
    const bounced = (await outbound(alice.api_key)).find((m) => m.message_id === ids[3]);
    // The node's words, cleaned: control characters gone, the rest kept.
    expect(bounced.last_error).toBe(`the node for many.test (${receiver.url}) refused it: [31mno such person`);
    const bounce = (await inboxOf(a, alice.api_key)).find((m) => m.body.includes(ids[3]!));
    expect(bounce.subject).toMatch(/^Undeliverable/);
  });

  it('gives a node without the batch route one message per request, in order', async () => {
    const singles: string[] = [];
    const older = await servers.start(async (request, response) => {
      if (request.url !== '/v1/federation/messages') return json(response, 404, { detail: 'Route not found' });
      const message = await bodyOf(request);
      singles.push(message.body);
      json(response, 200, { message_id: message.message_id, status: 'delivered' });
    });
    const ids = await queue('older.test', 5);
    await peer('older.test', older.url);
    await expect.poll(() => statusesOf(ids), WAIT).toEqual(ids.map(() => 'delivered'));
    expect(singles).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(older.requests.filter((r) => r.endsWith('/batch'))).toHaveLength(1);
    // Later mail goes straight to single messages: the node is remembered.
    const later = await send(alice.api_key, 'older.test/bob', 'later');
    await expect.poll(() => statusesOf([later]), WAIT).toEqual(['delivered']);
    expect(older.requests.filter((r) => r.endsWith('/batch'))).toHaveLength(1);
  });

  it("gives a node older than mail's thread_id the mail without it, rather than a bounce", async () => {
    const stored: any[] = [];
    const oldest = await servers.start(async (request, response) => {
      if (request.url !== '/v1/federation/messages') return json(response, 404, { detail: 'Route not found' });
      const message = await bodyOf(request);
      // As a node of that age answers a field it does not know (a strict schema).
      if ('thread_id' in message) return json(response, 422, { detail: [{ loc: ['body'], msg: 'Unrecognized key: "thread_id"', type: 'unrecognized_keys' }] });
      stored.push(message);
      json(response, 200, { message_id: message.message_id, status: 'delivered' });
    });
    await peer('oldest.test', oldest.url);
    const thread = '8a6f0c0e-5b7e-4f57-9d0c-2f1f5e0f9a11';
    const id = expectOk(
      await a.request('POST', '/v1/messages', {
        token: alice.api_key,
        body: { to_address: 'oldest.test/bob', body: 'threaded', thread_id: thread, content_mode: 'legacy_plaintext_v1' },
      }),
    ).message_id;
    await expect.poll(() => statusesOf([id]), WAIT).toEqual(['delivered']);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ message_id: id, body: 'threaded' });
    expect(stored[0]).not.toHaveProperty('thread_id');
  });

  it("waits out a peer's Retry-After for its whole queue, not message by message", async () => {
    const times: number[] = [];
    const busy = await servers.start(async (request, response) => {
      const { messages } = await bodyOf(request);
      times.push(Date.now());
      if (times.length === 1) return response.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"detail":"slow down"}');
      json(
        response,
        200,
        results(messages, () => ({ status: 'delivered' })),
      );
    });
    const first = await queue('busy.test', 3);
    await peer('busy.test', busy.url);
    await expect.poll(() => times.length, WAIT).toBe(1);
    // Mail to the same node while it asked us to wait waits too: nothing is sent before the second.
    const during = await queue('busy.test', 2, 'carol');
    await expect.poll(() => statusesOf([...first, ...during]), WAIT).toEqual(['delivered', 'delivered', 'delivered', 'delivered', 'delivered']);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900);
    // Mail queued during the pause was never tried before it ended: one attempt, the one that delivered it.
    const rows = new Map((await outbound(alice.api_key)).map((m) => [m.message_id, m]));
    expect(during.map((id) => rows.get(id).attempts)).toEqual([1, 1]);
  });

  it('keeps at most two requests in flight to one node, and one sender-to-recipient pair in one of them', async () => {
    const order: string[] = [];
    /** Pairs in requests open now, and how often a request carried a pair another open one did. */
    const open = new Set<string>();
    let overlaps = 0;
    const slow = await servers.start(async (request, response) => {
      const { messages } = await bodyOf(request);
      const pairs = new Set<string>(messages.map((m: any) => `${m.from}>${m.to}`));
      for (const pair of pairs) if (open.has(pair)) overlaps += 1;
      for (const pair of pairs) open.add(pair);
      order.push(...messages.map((m: any) => `${m.from}>${m.to}:${m.body}`));
      await new Promise((resolve) => setTimeout(resolve, 150));
      for (const pair of pairs) open.delete(pair);
      json(
        response,
        200,
        results(messages, () => ({ status: 'delivered' })),
      );
    });
    // A backlog first: more of one pair than a batch holds, all due at once when the node appears.
    const backlog = await queue('slow.test', 100, 'r0');
    await peer('slow.test', slow.url);
    await expect.poll(() => statusesOf(backlog), WAIT).toEqual(backlog.map(() => 'delivered'));
    expect(order.filter((o) => o.startsWith('a.test/alice>slow.test/r0:m')).map((o) => o.split(':')[1])).toEqual(backlog.map((_, i) => `m${i}`));
    order.length = 0;
    const sends: Promise<string>[] = [];
    for (let i = 0; i < 40; i++) {
      sends.push(send(alice.api_key, `slow.test/r${i % 4}`, `a${i}`));
      sends.push(send(ann.api_key, `slow.test/r${i % 4}`, `b${i}`));
    }
    await Promise.all(sends);
    await expect.poll(() => order.length, WAIT).toBe(80);
    expect(slow.maxOpen).toBeLessThanOrEqual(2);
    expect(overlaps).toBe(0);
    expect(slow.requests.length).toBeLessThan(40);
    // Each pair's messages arrived in the order they were sent.
    for (const from of ['a.test/alice', 'a.test/ann']) {
      for (let r = 0; r < 4; r++) {
        const pair = order.filter((o) => o.startsWith(`${from}>slow.test/r${r}:`)).map((o) => Number(o.split(':')[1]!.slice(1)));
        expect(pair).toEqual([...pair].sort((x, y) => x - y));
        expect(pair).toHaveLength(10);
      }
    }
  });

  it('shows the owner what waits for each peer: how many, since when, the next try and the last error', async () => {
    const down = await servers.start((_request, response) => response.destroy());
    await peer('down.test', down.url);
    const ids = await queue('down.test', 2);
    const queueOf = async () => (expectOk(await a.owner('GET', '/v1/node/peers')).peers as any[]).find((p) => p.domain === 'down.test').queue;
    await expect.poll(async () => (await queueOf()).last_error, WAIT).toBe(`could not reach ${down.url} (unreachable)`);
    const waiting = await queueOf();
    expect(waiting.queued).toBe(2);
    expect(waiting.oldest_queued_at).toBe((await outbound(alice.api_key)).find((m) => m.message_id === ids[0]).created_at);
    expect(Date.parse(waiting.next_attempt_at)).toBeGreaterThan(Date.parse(waiting.oldest_queued_at));
    const other = (expectOk(await a.owner('GET', '/v1/node/peers')).peers as any[]).find((p) => p.domain === 'many.test').queue;
    expect(other).toEqual({ queued: 0, oldest_queued_at: null, next_attempt_at: null, last_error: null });
    expectOk(await a.owner('DELETE', '/v1/node/peers/down.test'));
  });

  it('drains the backlog of a peer that was down by itself once it is back: in order, exactly once', async () => {
    // A port with nothing listening, for the first seconds: every try fails to connect.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    await peer('back.test', `http://127.0.0.1:${port}`);
    const sent: string[] = [];
    const started = Date.now();
    for (let k = 0; k < 120; k++) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + k * 20 - Date.now())));
      sent.push(await send(k % 2 === 0 ? alice.api_key : ann.api_key, `back.test/r${k % 3}`, `d${k}`));
    }
    // Back, and nothing sent since: only the outbox's own timers can bring the backlog.
    const arrived: string[] = [];
    const back = createServer(async (request, response) => {
      const { messages } = await bodyOf(request);
      arrived.push(...messages.map((m: any) => m.message_id));
      json(
        response,
        200,
        results(messages, () => ({ status: 'delivered' })),
      );
    });
    await new Promise<void>((resolve) => back.listen(port, '127.0.0.1', resolve));
    try {
      await expect.poll(() => arrived.length, WAIT).toBe(sent.length);
      expect(new Set(arrived).size).toBe(sent.length);
      // Each sender's messages to each recipient in the order sent (k steps by 6 within a pair).
      for (let pair = 0; pair < 6; pair++) {
        const ids = sent.filter((_, k) => k % 6 === pair);
        expect(arrived.filter((id) => ids.includes(id))).toEqual(ids);
      }
    } finally {
      back.close();
    }
  });

  it('tries a batch again when its answer is not a result for each message sent', async () => {
    let calls = 0;
    const odd = await servers.start(async (request, response) => {
      const { messages } = await bodyOf(request);
      calls += 1;
      json(response, 200, calls === 1 ? { results: [] } : results(messages, () => ({ status: 'delivered' })));
    });
    const ids = await queue('odd.test', 2);
    await peer('odd.test', odd.url);
    await expect.poll(() => statusesOf(ids), WAIT).toEqual(['delivered', 'delivered']);
    expect(calls).toBe(2);
  });
});

describe('two nodes through rate-limited peer listeners', () => {
  it('deliver a burst whole and in order, far beyond what the per-address limit would allow one request per message', async () => {
    // Ten requests, then one every 100 s: at one request per message this burst would take hours.
    const tight = { publicPort: 0, peerRateLimit: { burst: 10, perSecond: 0.01 }, outbox: FAST_OUTBOX };
    const a = await startTestNode(tight);
    onTestFinished(() => a.stop());
    const b = await startTestNode(tight);
    onTestFinished(() => b.stop());
    await createNodeNamespace(a, 'a.test');
    await createNodeNamespace(b, 'b.test');
    const pa = await createProject(a, 'pa', 'a.test');
    const pb = await createProject(b, 'pb', 'b.test');
    const senders = await Promise.all(['s1', 's2', 's3'].map((name) => createIdentity(a, pa.api_key, persistent(name))));
    const recipients = await Promise.all(['r1', 'r2'].map((name) => createIdentity(b, pb.api_key, persistent(name))));
    expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: b.node.info.public_url }), 201);
    expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: a.node.info.public_url }), 201);

    const PER_SENDER = 30;
    await Promise.all(
      senders.map(async (sender, s) => {
        for (let i = 0; i < PER_SENDER; i++) {
          const body = { to_address: `b.test/r${(i % 2) + 1}`, body: `s${s + 1}:${i}` };
          expectOk(await a.request('POST', '/v1/messages', { token: sender.api_key, body }));
        }
      }),
    );
    for (const [r, recipient] of recipients.entries()) {
      const expected = (senders.length * PER_SENDER) / 2;
      await expect.poll(async () => (await inboxOf(b, recipient.api_key)).length, WAIT).toBe(expected);
      const inbox = (await inboxOf(b, recipient.api_key)).reverse();
      for (let s = 1; s <= senders.length; s++) {
        const arrived = inbox.filter((m) => m.body.startsWith(`s${s}:`)).map((m) => Number(m.body.split(':')[1]));
        expect(arrived, `r${r + 1} from s${s}`).toEqual(Array.from({ length: PER_SENDER / 2 }, (_, k) => 2 * k + r));
      }
    }
  });
});
