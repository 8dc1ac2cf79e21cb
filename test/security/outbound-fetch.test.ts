/**
 * Federation fetches (DESIGN §7): everything the node fetches from other nodes goes through one
 * outbound client. Each attack runs for real against a running node: unauthenticated
 * `POST /v1/federation/messages` whose sender domain points the node's sender check somewhere
 * hostile, and a local identity mailing a hostile domain. The "internal service" is a loopback
 * server that counts every TCP connection, so "never contacted" is measured, not assumed; DNS is
 * the one fake (a table), as everywhere in the suite.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDnsRecord } from '../../server/crypto/dns-txt.ts';
import { REFUSAL_REASON_MAX_CHARS } from '../../server/federation/refusal-reason.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { signedMail } from '../support/federation.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { testKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { json, remoteServers, stream, type RemoteServer } from '../support/remote-server.ts';

const SECRET = 'db_password=hunter2';
const MiB = 1024 * 1024;
const WAIT = { timeout: 10_000, interval: 25 };
/** The node's outbound caps, tightened so the tests reach them quickly. */
const REMOTE = { timeoutMs: 2_000, perOriginConcurrency: 2, totalConcurrency: 3, perOriginWaiting: 2, totalWaiting: 8 };

let node: TestNode;
let alice: { api_key: string };
let bob: { api_key: string };
/** An internal service on loopback: a plain-text secret and an odd status for whoever asks. */
let internal: RemoteServer;
const servers = remoteServers();
const remote = servers.start;

beforeAll(async () => {
  node = await startTestNode({ outbox: { retryBaseMs: 40, retryMaxMs: 200 }, remote: REMOTE });
  return () => node.stop();
});
beforeAll(async () => {
  await createNodeNamespace(node, 'n.test');
  const project = await createProject(node, 'pn', 'n.test');
  alice = await createIdentity(node, project.api_key, persistent('alice'));
  bob = await createIdentity(node, project.api_key, persistent('bob'));
  internal = await remote((request, response) => {
    response.writeHead(request.method === 'POST' ? 403 : 418, { 'content-type': 'text/plain' }).end(`${SECRET}\n`);
  });
});

afterAll(async () => {
  await servers.closeAll();
});

/** `domain`'s `_svcid` record names `https://<host>:<port>` as its node, and `host` resolves to `addresses`. */
function dnsNode(domain: string, host: string, port: number, addresses: string[]): string {
  const origin = `https://${host}:${port}`;
  node.dns.records[`_svcid.${domain}`] = [[renderDnsRecord({ controllerDid: testKey().didKey, origin })]];
  node.dns.addresses[host] = addresses;
  return origin;
}

async function peer(domain: string, url: string): Promise<void> {
  expectOk(await node.owner('POST', '/v1/node/peers', { domain, url }), 201);
}

/** An unauthenticated delivery to bob claiming to come from `from`, signed by a fresh key. */
const forged = (from: string) =>
  node.request('POST', '/v1/federation/messages', { body: signedMail(testKey(), { from, to: 'n.test/bob', body: `from ${from}` }) });

const inbox = async (key: string) => expectOk(await node.request('GET', '/v1/messages/inbox?limit=100', { token: key })).messages as any[];
const outbound = async () => expectOk(await node.request('GET', '/v1/messages/outbound', { token: alice.api_key })).messages as any[];
const outboundOf = async (id: string) => (await outbound()).find((m) => m.message_id === id);

/** Nothing the internal service said (its body, its status) appears in `value`. */
function expectNoLeak(value: unknown): void {
  const text = JSON.stringify(value);
  expect(text).not.toContain('db_password');
  expect(text).not.toContain('hunter2');
  expect(text).not.toMatch(/\b418\b/);
}

describe('the sender check of an unauthenticated POST /v1/federation/messages', () => {
  it('never connects to a DNS-named sender node that resolves to loopback or another non-public address', async () => {
    const cases = [['127.0.0.1'], ['::ffff:127.0.0.1'], ['::1'], ['10.0.0.1', '127.0.0.1'], ['169.254.169.254']];
    for (const [i, addresses] of cases.entries()) {
      dnsNode(`evil${i}.test`, `node.evil${i}.test`, internal.port, addresses);
      // Three tries each: the attack used to make the node GET the internal URL three times.
      for (let attempt = 0; attempt < 3; attempt++) {
        const answer = await forged(`evil${i}.test/mallory`);
        expectRefusal(answer, 503, undefined, 'SVC_ERR_PEER_UNAVAILABLE');
        expect(answer.body.detail).toBe(`Could not check evil${i}.test/mallory with its node; try again later`);
        expectNoLeak(answer.body);
      }
    }
    expect(internal.connections).toBe(0);
    expect((await inbox(bob.api_key)).filter((m) => m.from_address?.startsWith('evil'))).toEqual([]);
  });

  it('answers in the same words whether the named node is at a private address, has no address, does not connect or never answers', async () => {
    // What the attacker picks: names that map this node's own DNS and network, were the answers to differ.
    dnsNode('split-private.test', 'node.split-private.test', internal.port, ['10.20.30.40']);
    dnsNode('split-none.test', 'node.split-none.test', internal.port, []);
    const closed = await remote(() => undefined);
    await closed.close();
    await peer('split-closed.test', closed.url);
    await peer('split-silent.test', (await remote(() => undefined)).url);
    const details = new Set<string>();
    for (const domain of ['split-private.test', 'split-none.test', 'split-closed.test', 'split-silent.test']) {
      const answer = await forged(`${domain}/x`);
      expectRefusal(answer, 503, undefined, 'SVC_ERR_PEER_UNAVAILABLE');
      details.add(answer.body.detail.replace(domain, 'D'));
    }
    expect([...details]).toEqual(['Could not check D/x with its node; try again later']);
    expect(internal.connections).toBe(0);
  });

  it('does not follow a redirect from a peer: the target sees no request, and the answer leaks neither its status nor its body', async () => {
    const redirect = await remote((_request, response) => response.writeHead(302, { location: `${internal.url}/admin` }).end());
    await peer('redirect.test', redirect.url);
    const answer = await forged('redirect.test/mallory');
    expect(internal.connections).toBe(0);
    expectNoLeak(answer.body);
    expect(redirect.requests).toEqual(['GET /v1/namespaces/redirect.test/addresses/mallory']);
    expectRefusal(answer, 503, undefined, 'SVC_ERR_PEER_UNAVAILABLE');
    expect(answer.body.detail).toBe('Could not check redirect.test/mallory with its node; try again later');
  });

  it('answers alike whatever status or body the sender node gives, so it is no status oracle', async () => {
    const details: string[] = [];
    for (const [i, status] of [401, 418, 500, 503].entries()) {
      const answering = await remote((_request, response) => response.writeHead(status, { 'content-type': 'text/plain' }).end(`${SECRET} (${status})`));
      await peer(`oracle-${'abcd'[i]}.test`, answering.url);
      const answer = await forged(`oracle-${'abcd'[i]}.test/x`);
      expectRefusal(answer, 503, undefined, 'SVC_ERR_PEER_UNAVAILABLE');
      expectNoLeak(answer.body);
      expect(answer.body.detail).not.toContain(String(status));
      details.push(answer.body.detail.replace(/oracle-\w\.test/, 'D'));
    }
    expect(new Set(details)).toEqual(new Set(['Could not check D/x with its node; try again later']));

    // A 200 that is not JSON gets the same words.
    const text = await remote((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(SECRET));
    await peer('text.test', text.url);
    const answer = await forged('text.test/x');
    expectRefusal(answer, 503, undefined, 'SVC_ERR_PEER_UNAVAILABLE');
    expect(answer.body.detail).toBe('Could not check text.test/x with its node; try again later');
    expectNoLeak(answer.body);
  });

  it('cuts sender nodes streaming huge answers at the cap: four of them cost neither time nor memory', async () => {
    const huge = await remote((_request, response) => stream(huge, response, 128 * MiB));
    const declared = await remote((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * MiB) }).write('[');
    });
    await peer('huge.test', huge.url);
    await peer('declared.test', declared.url);
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const answers = await Promise.all([...Array.from({ length: 4 }, () => forged('huge.test/x')), forged('declared.test/x')]);
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    expect(Date.now() - started).toBeLessThan(8_000);
    await expect.poll(() => huge.open, WAIT).toBe(0);
    // Four answers of 128 MiB were offered; each was cut after 64 KiB (plus what socket buffers held).
    expect(huge.requests).toHaveLength(4);
    expect(huge.bytesWritten).toBeLessThan(4 * 16 * MiB);
    expect(rssGrowth).toBeLessThan(100 * MiB);
    for (const [i, answer] of answers.entries()) {
      expectRefusal(answer, 503, undefined, 'SVC_ERR_PEER_UNAVAILABLE');
      expect(answer.body.detail).toBe(`Could not check ${i < 4 ? 'huge' : 'declared'}.test/x with its node; try again later`);
    }
  });

  it('times out a sender node that never answers, and one that trickles its answer forever', async () => {
    const silent = await remote(() => undefined);
    const trickle = await remote((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => response.write(' '), 100);
      response.on('close', () => clearInterval(timer));
    });
    await peer('silent.test', silent.url);
    await peer('trickle.test', trickle.url);
    for (const domain of ['silent.test', 'trickle.test']) {
      const started = Date.now();
      const answer = await forged(`${domain}/x`);
      // The node's total timeout here is 2 s (10 s by default).
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(Date.now() - started).toBeLessThan(8_000);
      expectRefusal(answer, 503, undefined, 'SVC_ERR_PEER_UNAVAILABLE');
      expect(answer.body.detail).toBe(`Could not check ${domain}/x with its node; try again later`);
    }
    await expect.poll(() => silent.open + trickle.open, WAIT).toBe(0);
  });

  it('caps concurrent checks per sender node and in all, refusing what is beyond the waiting line', async () => {
    const held: (() => void)[] = [];
    let open = 0;
    let maxOpen = 0;
    const hold = (_request: unknown, response: Parameters<typeof json>[0]) => {
      maxOpen = Math.max(maxOpen, ++open);
      held.push(() => json(response, 404, { detail: 'not found' }));
      response.on('close', () => open--);
    };
    const one = await remote(hold);
    const two = await remote(hold);
    await peer('hold1.test', one.url);
    await peer('hold2.test', two.url);
    let answered = 0;
    const posts = [...Array.from({ length: 4 }, () => forged('hold1.test/x')), ...Array.from({ length: 4 }, () => forged('hold2.test/x'))].map((post) =>
      post.finally(() => answered++),
    );
    // Three run (the total cap), at most two per node; four wait; the rest are refused at once.
    await expect.poll(() => open, WAIT).toBe(3);
    await expect.poll(() => answered, WAIT).toBeGreaterThanOrEqual(1);
    expect(Math.max(one.maxOpen, two.maxOpen)).toBeLessThanOrEqual(2);
    held.splice(0).forEach((answer) => answer());
    const releaser = setInterval(() => held.splice(0).forEach((answer) => answer()), 20);
    const answers = await Promise.all(posts).finally(() => clearInterval(releaser));
    expect(maxOpen).toBe(3);
    expect(Math.max(one.maxOpen, two.maxOpen)).toBe(2);
    const details = answers.map((answer) => `${answer.status} ${answer.body.detail.replace(/hold\d/, 'D')}`);
    const busy = '503 Could not check D.test/x with its node; try again later';
    expect(details.filter((d) => d === busy).length).toBeGreaterThanOrEqual(1);
    expect(details.filter((d) => d !== busy).every((d) => d === '403 Refused: D.test/x does not exist on its node')).toBe(true);
    expect(one.requests.length + two.requests.length).toBe(details.filter((d) => d !== busy).length);
  });
});

describe('delivery from a local identity to a hostile receiving node', () => {
  // Named plaintext, so each mail goes straight to delivery: a sealed one asks the node for the
  // recipient's key first, whose hostile answers server/federation/remote-encryption-keys.test.ts covers.
  const send = async (to: string) =>
    expectOk(
      await node.request('POST', '/v1/messages', {
        token: alice.api_key,
        body: { to_address: to, subject: `to ${to}`, body: 'hello', content_mode: 'legacy_plaintext_v1' },
      }),
    ).message_id as string;

  it('never shows a non-JSON body such as db_password=… in the bounce or the outbound status', async () => {
    const hostile = await remote((_request, response) => response.writeHead(403, { 'content-type': 'text/plain' }).end(SECRET));
    await peer('hostile.test', hostile.url);
    const id = await send('hostile.test/victim');
    await expect.poll(async () => (await outboundOf(id))?.status, WAIT).toBe('bounced');
    const bounce = (await inbox(alice.api_key)).find((m) => m.origin === 'bounce' && m.body.includes(id));
    expectNoLeak(bounce);
    expectNoLeak(await outbound());
    expect((await outboundOf(id)).last_error).toBe(`the node for hostile.test (${hostile.url}) refused it: it answered 403`);
    expect(bounce.body).toContain(`refused it: it answered 403`);
    expectOk(await node.owner('DELETE', '/v1/node/peers/hostile.test'));
  });

  it('says only the status of a 5xx it will retry', async () => {
    const failing = await remote((_request, response) => response.writeHead(500, { 'content-type': 'text/plain' }).end(SECRET));
    await peer('failing.test', failing.url);
    const id = await send('failing.test/victim');
    await expect.poll(async () => (await outboundOf(id))?.last_error ?? '', WAIT).not.toBe('');
    expectNoLeak(await outbound());
    expect((await outboundOf(id)).last_error).toBe(`${failing.url} answered 500`);
    expect((await outboundOf(id)).status).toBe('queued');
    // Its retries would go on all through the file otherwise.
    expectOk(await node.owner('DELETE', '/v1/node/peers/failing.test'));
  });

  it("keeps a receiving node's JSON refusal detail, cleaned of control characters and capped", async () => {
    const noisy = `\u001b[31mRecipient\u0000 is away\u202e\r\n${'x'.repeat(5_000)}`;
    const refusing = await remote((_request, response) => json(response, 422, { detail: noisy }));
    await peer('refusing.test', refusing.url);
    const id = await send('refusing.test/victim');
    await expect.poll(async () => (await outboundOf(id))?.status, WAIT).toBe('bounced');
    const reason = (await outboundOf(id)).last_error.replace(`the node for refusing.test (${refusing.url}) refused it: `, '');
    expect(reason.startsWith('[31mRecipient is away xxx')).toBe(true);
    expect(reason).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect([...reason]).toHaveLength(REFUSAL_REASON_MAX_CHARS);
    expect(reason.endsWith('…')).toBe(true);
  });

  it('does not follow a redirect to an internal service', async () => {
    const redirect = await remote((_request, response) => response.writeHead(307, { location: `${internal.url}/v1/federation/messages` }).end());
    await peer('redirecting.test', redirect.url);
    const id = await send('redirecting.test/victim');
    await expect.poll(async () => (await outboundOf(id))?.last_error ?? '', WAIT).not.toBe('');
    expect(internal.connections).toBe(0);
    expectNoLeak(await outbound());
    expectNoLeak(await inbox(alice.api_key));
    expect((await outboundOf(id)).last_error).toBe(`${redirect.url} gave no usable answer (refused: it answered with a redirect, which is never followed)`);
    expect((await outboundOf(id)).status).toBe('queued');
    expectOk(await node.owner('DELETE', '/v1/node/peers/redirecting.test'));
  });

  it('never contacts a DNS-named receiving node at a loopback address', async () => {
    const origin = dnsNode('rebound.test', 'node.rebound.test', internal.port, ['127.0.0.1']);
    const id = await send('rebound.test/victim');
    await expect.poll(async () => (await outboundOf(id))?.last_error ?? '', WAIT).toBe(`could not reach ${origin} (refused: its address is not a public one)`);
    expect((await outboundOf(id)).status).toBe('queued');
    expect(internal.connections).toBe(0);
    delete node.dns.records['_svcid.rebound.test'];
  });

  it('cuts a receiving node streaming a huge answer at the cap', async () => {
    const bloated = await remote(async (request, response) => {
      request.resume();
      await once(request, 'end');
      await stream(bloated, response, 128 * MiB);
    });
    await peer('bloated.test', bloated.url);
    const id = await send('bloated.test/victim');
    // Read the attempt's error while the peer is still known: a retry after the peer is removed
    // records "no node is known" instead.
    await expect.poll(async () => (await outboundOf(id))?.last_error ?? '', WAIT).toBe(`${bloated.url} gave no usable answer (answer too large)`);
    expectOk(await node.owner('DELETE', '/v1/node/peers/bloated.test'));
    await expect.poll(() => bloated.open, WAIT).toBe(0);
    // Retries each cost one capped read: far less than one whole answer.
    expect(bloated.bytesWritten / bloated.requests.length).toBeLessThan(16 * MiB);
    expect((await outboundOf(id)).status).toBe('queued');
  });
});
