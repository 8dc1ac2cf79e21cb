/**
 * The time one inbound federation request may take, performed for real against a node's peer
 * listener: sender nodes on loopback that answer each question only after seconds (as a slow or
 * hostile node does) cannot hold the request past its budget; what was not checked by then is
 * deferred with a time to come back, and arrives when the sender comes back. And the peer
 * listener answers any request whose answer has not begun by its request timeout.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_RETRY_AFTER_S, INBOUND_TIME_BUDGET_MS } from '../../server/federation/sender-lookups.ts';
import { RESPONSE_TIMEOUT_RETRY_AFTER_S } from '../../server/http/peer-timeouts.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { signedMail, vouchingNode } from '../support/federation.ts';
import { rawRequest } from '../support/http.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { testKey, type TestKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { remoteServers } from '../support/remote-server.ts';

const servers = remoteServers();
afterAll(() => servers.closeAll());
/** What a request may take beyond its budget: answering, and a slow machine. */
const SLACK_MS = 1_500;

const postFrom = (t: TestNode, path: string, body: unknown, from: string) =>
  rawRequest(t.node.info.public_url as string, 'POST', path, {
    localAddress: from,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', connection: 'close' },
  });

/** A node with bob, and `count` sender domains (`slow<i>.test`) whose nodes answer each question after `delay()` ms. */
async function nodeWithSlowSenders(count: number, delay: () => number, options: Parameters<typeof startTestNode>[0] = {}) {
  const t = await startTestNode({ publicPort: 0, peerRateLimit: { burst: 1_000, perSecond: 100 }, ...options });
  await createNodeNamespace(t, 'b.test');
  await createIdentity(t, (await createProject(t, 'pb', 'b.test')).api_key, persistent('bob'));
  const senders: { domain: string; key: TestKey }[] = [];
  for (let i = 0; i < count; i++) {
    const domain = `slow${i}.test`;
    const key = testKey();
    expectOk(await t.owner('POST', '/v1/node/peers', { domain, url: (await vouchingNode(servers, domain, { zed: key }, { delayMs: delay })).url }), 201);
    senders.push({ domain, key });
  }
  const mail = (i: number, body = `from ${i}`) => signedMail(senders[i]!.key, { from: `${senders[i]!.domain}/zed`, to: 'b.test/bob', body });
  return { t, mail };
}

describe('the time budget of one federation request', () => {
  let delay = 3_000;
  let b: TestNode;
  let mail: (i: number, body?: string) => ReturnType<typeof signedMail>;

  beforeAll(async () => {
    // Eight for the batch; the ninth, never checked, for the single route.
    ({ t: b, mail } = await nodeWithSlowSenders(9, () => delay));
    return () => b.stop();
  });

  it('answers a batch naming slow sender nodes within it, defers what was not checked, and takes it when sent again', async () => {
    const messages = Array.from({ length: 8 }, (_, i) => mail(i, `slow batch ${i}`));
    const started = performance.now();
    const answer = await postFrom(b, '/v1/federation/messages/batch', { v: 1, messages }, '127.0.0.2');
    expect(performance.now() - started).toBeLessThan(INBOUND_TIME_BUDGET_MS + SLACK_MS);
    expect(answer.status).toBe(200);
    for (const result of answer.body.results) {
      expect(result).toMatchObject({ status: 'deferred', code: 'SVC_ERR_FEDERATION_BUDGET_SPENT', retry_after: BUDGET_RETRY_AFTER_S });
    }
    // The sending node comes back; its senders' nodes answer in time now.
    delay = 0;
    const again = await postFrom(b, '/v1/federation/messages/batch', { v: 1, messages }, '127.0.0.2');
    expect((again.body.results as any[]).map((r) => r.status)).toEqual(messages.map(() => 'delivered'));
  }, 30_000);

  it('answers the single route with a 503 and Retry-After once the budget is spent', async () => {
    delay = 5_000;
    const started = performance.now();
    const answer = await postFrom(b, '/v1/federation/messages', mail(8, 'slow single'), '127.0.0.3');
    expect(performance.now() - started).toBeLessThan(INBOUND_TIME_BUDGET_MS + SLACK_MS);
    expectRefusal(answer, 503, /try again in 1 s/, 'SVC_ERR_FEDERATION_BUDGET_SPENT');
    expect(answer.headers.get('retry-after')).toBe(String(BUDGET_RETRY_AFTER_S));
  }, 30_000);
});

describe("the peer listener's request timeout", () => {
  const REQUEST_MS = 1_500;
  let b: TestNode;
  let mail: (i: number) => ReturnType<typeof signedMail>;

  beforeAll(async () => {
    ({ t: b, mail } = await nodeWithSlowSenders(1, () => 3_000, { peerTimeouts: { headersMs: 1_000, requestMs: REQUEST_MS, checkEveryMs: 100 } }));
    return () => b.stop();
  });

  it('covers the answer too: a request not answered by then gets a 503 and its connection closed, and the listener goes on', async () => {
    const started = performance.now();
    const answer = await postFrom(b, '/v1/federation/messages', mail(0), '127.0.0.4');
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect(elapsed).toBeLessThan(REQUEST_MS + SLACK_MS);
    expectRefusal(answer, 503, /could not answer within 1\.5 s/, 'SVC_ERR_RESPONSE_TIMEOUT');
    expect(answer.headers.get('retry-after')).toBe(String(RESPONSE_TIMEOUT_RETRY_AFTER_S));
    expect(answer.headers.get('connection')).toBe('close');
    // The handler, still running, finishes later without harm: the listener answers what comes next.
    await new Promise((resolve) => setTimeout(resolve, INBOUND_TIME_BUDGET_MS));
    expect((await rawRequest(b.node.info.public_url as string, 'GET', '/v1/blueprints', { localAddress: '127.0.0.4' })).status).toBe(200);
  }, 30_000);
});
