/**
 * What inbound federation asks of DNS, performed for real: the node's name server is a DNS server
 * on loopback (test/support/dns-server.ts) that answers, stays silent, or fails, and counts what it
 * is asked.
 * - a batch whose sender domains' DNS never answers is answered within the request's time budget,
 *   not after minutes of lookups one after the other;
 * - one request makes at most MAX_DNS_QUERIES_PER_REQUEST lookups, each charged to its client;
 * - a lookup that failed defers the message (retried), where one answered "no such record"
 *   refuses it (bounced): a resolver hiccup at the receiver loses no mail, between real nodes too.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { renderDnsRecord } from '../../server/crypto/dns-txt.ts';
import { DNS_FAILED_RETRY_AFTER_S } from '../../server/federation/inbound.ts';
import { MAX_DNS_QUERIES_PER_REQUEST } from '../../server/dns/limits.ts';
import { INBOUND_TIME_BUDGET_MS } from '../../server/federation/sender-lookups.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { signedMail, vouchingNode } from '../support/federation.ts';
import { rawRequest } from '../support/http.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { testKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { remoteServers } from '../support/remote-server.ts';

const servers = remoteServers();
afterAll(() => servers.closeAll());
const SLACK_MS = 1_500;
const WAIT = { timeout: 15_000, interval: 50 };

const postFrom = (t: TestNode, path: string, body: unknown, from: string) =>
  rawRequest(t.node.info.public_url as string, 'POST', path, {
    localAddress: from,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', connection: 'close' },
  });
const batchFrom = (t: TestNode, messages: unknown[], from: string) => postFrom(t, '/v1/federation/messages/batch', { v: 1, messages }, from);
/** A mail to bob from `<domain>/mallory`, validly signed by a key of its own. */
const from = (domain: string) => signedMail(testKey(), { from: `${domain}/mallory`, to: 'b.test/bob', body: `from ${domain}` });

async function receiver(options: Parameters<typeof startTestNode>[0] = {}): Promise<TestNode> {
  const t = await startTestNode({ publicPort: 0, ...options });
  await createNodeNamespace(t, 'b.test');
  await createIdentity(t, (await createProject(t, 'pb', 'b.test')).api_key, persistent('bob'));
  return t;
}

describe('sender domains whose DNS never answers', () => {
  let b: TestNode;
  beforeAll(async () => {
    b = await receiver({ peerRateLimit: { burst: 1_000, perSecond: 100 } });
    return () => b.stop();
  });

  it('hold a batch of 64 for the time budget, not minutes: every message is deferred', async () => {
    const domains = Array.from({ length: 64 }, (_, i) => `silent${i}.test`);
    for (const domain of domains) b.dns.behaviour[`_svcid.${domain}`] = 'silent';
    const started = performance.now();
    const answer = await batchFrom(b, domains.map(from), '127.0.0.2');
    expect(performance.now() - started).toBeLessThan(INBOUND_TIME_BUDGET_MS + SLACK_MS);
    expect(answer.status).toBe(200);
    for (const result of answer.body.results)
      expect(result).toMatchObject({ status: 'deferred', code: 'SVC_ERR_FEDERATION_BUDGET_SPENT', retry_after: expect.any(Number) });
    expect(domains.filter((domain) => b.dns.queries(`_svcid.${domain}`) > 0).length).toBeLessThanOrEqual(MAX_DNS_QUERIES_PER_REQUEST);
  }, 30_000);
});

describe('DNS lookups of one request', () => {
  const BURST = 20;
  let b: TestNode;
  beforeAll(async () => {
    // Nothing comes back during the test: every token counted is one spent.
    b = await receiver({ peerRateLimit: { burst: BURST, perSecond: 0.01 } });
    return () => b.stop();
  });

  it(`are at most ${MAX_DNS_QUERIES_PER_REQUEST}, each charged to the client: a batch of senders without records is no DNS amplifier`, async () => {
    // Domains with no record at all: each one a query, answered "no such name".
    const domains = (prefix: string) => Array.from({ length: 64 }, (_, i) => `${prefix}${i}.test`);
    const askedOf = (names: string[]) => names.filter((domain) => b.dns.queries(`_svcid.${domain}`) > 0);
    const first = domains('unlisted');
    const results = (await batchFrom(b, first.map(from), '127.0.0.2')).body.results as any[];
    expect(askedOf(first)).toEqual(first.slice(0, MAX_DNS_QUERIES_PER_REQUEST));
    expect(results.slice(0, MAX_DNS_QUERIES_PER_REQUEST).map((r) => r.code)).toEqual(
      first.slice(0, MAX_DNS_QUERIES_PER_REQUEST).map(() => 'SVC_ERR_SENDER_NODE_UNKNOWN'),
    );
    for (const result of results.slice(MAX_DNS_QUERIES_PER_REQUEST))
      expect(result).toMatchObject({ status: 'deferred', code: 'SVC_ERR_FEDERATION_BUDGET_SPENT' });

    // Each query and each refusal took a token (16 of the 20, the request's own among them): four
    // are left, so the next request gets two queries out before its client's bucket is dry.
    const second = domains('other');
    const more = (await batchFrom(b, second.map(from), '127.0.0.2')).body.results as any[];
    expect(askedOf(second)).toHaveLength(2);
    expect(more.filter((r) => r.code === 'SVC_ERR_SENDER_NODE_UNKNOWN')).toHaveLength(2);
    expect(more.slice(2).every((r) => r.status === 'deferred' && r.code === 'SVC_ERR_RATE_LIMITED')).toBe(true);
    expectRefusal(await batchFrom(b, second.map(from), '127.0.0.2'), 429, undefined, 'SVC_ERR_RATE_LIMITED');

    // Answers are kept: another client naming the first domains again sends no query for them.
    const before = first.map((domain) => b.dns.queries(`_svcid.${domain}`));
    const again = (await batchFrom(b, first.slice(0, MAX_DNS_QUERIES_PER_REQUEST).map(from), '127.0.0.3')).body.results as any[];
    expect(again.map((r) => r.code)).toEqual(first.slice(0, MAX_DNS_QUERIES_PER_REQUEST).map(() => 'SVC_ERR_SENDER_NODE_UNKNOWN'));
    expect(first.map((domain) => b.dns.queries(`_svcid.${domain}`))).toEqual(before);
  });
});

describe('a sender lookup that failed', () => {
  let b: TestNode;
  beforeAll(async () => {
    // DNS changes between steps here: no answer is kept for them to expire.
    b = await receiver({ peerRateLimit: { burst: 1_000, perSecond: 100 }, dnsLimits: { positiveTtlMs: 0, failureTtlMs: 0, negativeTtlMs: 0 } });
    return () => b.stop();
  });

  it('defers the message (503, Retry-After) where a lookup that answered "no such name" refuses it', async () => {
    b.dns.behaviour['_svcid.servfail.test'] = 'servfail';
    b.dns.behaviour['_svcid.nxdomain.test'] = 'nxdomain';
    const failed = await postFrom(b, '/v1/federation/messages', from('servfail.test'), '127.0.0.2');
    expectRefusal(failed, 503, /^Could not look up servfail\.test in DNS here/, 'SVC_ERR_SENDER_DNS_FAILED');
    expect(failed.headers.get('retry-after')).toBe(String(DNS_FAILED_RETRY_AFTER_S));
    expectRefusal(await postFrom(b, '/v1/federation/messages', from('nxdomain.test'), '127.0.0.2'), 403, undefined, 'SVC_ERR_SENDER_NODE_UNKNOWN');

    const { results } = (await batchFrom(b, [from('servfail.test'), from('nxdomain.test')], '127.0.0.3')).body as { results: any[] };
    expect(results[0]).toMatchObject({ status: 'deferred', code: 'SVC_ERR_SENDER_DNS_FAILED', retry_after: DNS_FAILED_RETRY_AFTER_S });
    expect(results[1]).toMatchObject({ status: 'refused', code: 'SVC_ERR_SENDER_NODE_UNKNOWN' });
  });

  it("defers a verified namespace's message when DNS fails to confirm it, and refuses it when DNS names someone else", async () => {
    const controller = testKey();
    const zed = testKey();
    const namespace = { domain: 'verified.test', verification_status: 'verified', controller_did: controller.didKey };
    expectOk(
      await b.owner('POST', '/v1/node/peers', { domain: 'verified.test', url: (await vouchingNode(servers, 'verified.test', { zed }, { namespace })).url }),
      201,
    );
    const mail = () => signedMail(zed, { from: 'verified.test/zed', to: 'b.test/bob' });
    b.dns.behaviour['_svcid.verified.test'] = 'servfail';
    expectRefusal(await postFrom(b, '/v1/federation/messages', mail(), '127.0.0.4'), 503, undefined, 'SVC_ERR_SENDER_DNS_FAILED');
    delete b.dns.behaviour['_svcid.verified.test'];
    b.dns.records['_svcid.verified.test'] = [[renderDnsRecord({ controllerDid: testKey().didKey })]];
    expectRefusal(await postFrom(b, '/v1/federation/messages', mail(), '127.0.0.4'), 403, undefined, 'SVC_ERR_SENDER_DNS_UNVERIFIED');
    b.dns.records['_svcid.verified.test'] = [[renderDnsRecord({ controllerDid: controller.didKey })]];
    expect(expectOk(await postFrom(b, '/v1/federation/messages', mail(), '127.0.0.4')).status).toBe('delivered');
  });
});

describe('between real nodes, a resolver failure at the receiver', () => {
  it('delays the mail instead of bouncing it: it arrives once DNS answers again', async () => {
    const a = await startTestNode({ publicPort: 0, outbox: { retryBaseMs: 40, retryMaxMs: 200, peerRetryMaxMs: 200 }, dnsLimits: { negativeTtlMs: 0 } });
    onTestFinished(() => a.stop());
    const b = await receiver({ dnsLimits: { failureTtlMs: 0, negativeTtlMs: 0 } });
    onTestFinished(() => b.stop());
    // a.test is verified on its node, so the receiver confirms it in its own DNS.
    const { controller_did } = await createNodeNamespace(a, 'a.test');
    a.dns.records['_svcid.a.test'] = [[renderDnsRecord({ controllerDid: controller_did })]];
    expect(expectOk(await a.request('POST', '/v1/namespaces/a.test/verify')).verification_status).toBe('verified');
    const alice = await createIdentity(a, (await createProject(a, 'pa', 'a.test')).api_key, persistent('alice'));
    expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: b.node.info.public_url }), 201);
    expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: a.node.info.public_url }), 201);

    b.dns.behaviour['_svcid.a.test'] = 'servfail';
    const id = expectOk(await a.request('POST', '/v1/messages', { token: alice.api_key, body: { to_address: 'b.test/bob', body: 'through a hiccup' } }))
      .message_id as string;
    const outbound = async () =>
      (expectOk(await a.request('GET', '/v1/messages/outbound', { token: alice.api_key })).messages as any[]).find((m) => m.message_id === id);
    await expect.poll(async () => (await outbound())?.last_error ?? '', WAIT).toMatch(/deferred it: Could not look up a\.test in DNS here/);
    expect((await outbound()).status).not.toBe('bounced');

    delete b.dns.behaviour['_svcid.a.test'];
    b.dns.records['_svcid.a.test'] = [[renderDnsRecord({ controllerDid: controller_did })]];
    await expect.poll(async () => (await outbound())?.status, { timeout: 30_000, interval: 100 }).toBe('delivered');
  }, 45_000);
});
