/**
 * Namespace registration as a DNS amplifier, performed for real against a node whose DNS goes to
 * a name server on loopback that counts every query it receives:
 *
 * - one unauthenticated `POST /v1/namespaces` for a 121-label domain made the node ask 120
 *   names; a domain is now refused (422) before any lookup when it has more than 8 labels, and a
 *   check asks at most the 7 names that can hold its record;
 * - one client could make the node ask DNS as fast as it could send requests; each query now
 *   costs the client a token of its rate limit on the peer listener (429 with Retry-After when
 *   spent), and the node as a whole asks no faster than its own budget (503);
 * - IP literals were accepted as namespace domains: a namespace is a name, never an address;
 * - concurrent registrations of one namespace while DNS hangs answered 500 to all but one:
 *   losers get 409, and no custody key is left behind for them.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { didKeyHeaders, testKey, type TestKey } from '../support/keys.ts';
import { registerByOwner } from '../support/namespaces.ts';
import { requestJson, startTestNode, type ApiResponse, type TestNode } from '../support/node.ts';
import { openStoppedNode } from './support.ts';

/** A label no other test (and no earlier run) asks about, so the cache never answers for it. */
const label = (): string => `l${randomBytes(4).toString('hex')}`;

/** `labels` labels under `.test`, every one of them fresh. */
const deepDomain = (labels: number): string => [...Array.from({ length: labels - 1 }, label), 'test'].join('.');

function register(url: string, domain: string, key: TestKey = testKey()): Promise<ApiResponse> {
  return requestJson(url, 'POST', '/v1/namespaces', {
    body: { domain, controller_did: key.didKey },
    headers: didKeyHeaders(key, { domain, operation: 'register' }),
  });
}

/** Every `_svcid` query the server received for `domain` and its ancestors. */
const svcidQueries = (t: TestNode, domain: string): number => {
  const labels = domain.split('.');
  return labels.reduce((sum, _, i) => sum + t.dns.queries(`_svcid.${labels.slice(i).join('.')}`), 0);
};

describe('DNS queries per request', () => {
  let t: TestNode;
  let peerUrl: string;
  beforeAll(async () => {
    t = await startTestNode({ publicPort: 0 });
    peerUrl = t.node.info.public_url as string;
  });
  afterAll(() => t.stop());

  it('refuses a 121-label domain (422) without asking DNS', async () => {
    // 120 one-letter labels and the top-level one: 241 characters, a valid DNS name.
    const domain = [...Array.from({ length: 120 }, (_, i) => String.fromCharCode(97 + (i % 26))), 'test'].join('.');
    expect(domain.length).toBeLessThanOrEqual(253);
    t.dns.resetCounts();
    const refused = await register(peerUrl, domain);
    expectRefusal(refused, 422, undefined, 'SVC_ERR_VALIDATION');
    expect(JSON.stringify(refused.body)).toMatch(/at most 8 labels/);
    expect(t.dns.queries()).toBe(0);
  });

  it('asks at most the 7 names that can hold the record of an 8-label domain, and a 9-label one is refused', async () => {
    const domain = deepDomain(8);
    t.dns.resetCounts();
    expectRefusal(await register(peerUrl, domain), 403, undefined, 'SVC_ERR_NAMESPACE_DNS_PROOF_REQUIRED');
    expect(svcidQueries(t, domain)).toBe(7);
    expect(t.dns.queries()).toBeLessThanOrEqual(8);
    // The top-level domain is never asked: it holds no namespace.
    expect(t.dns.queries('_svcid.test')).toBe(0);

    t.dns.resetCounts();
    expectRefusal(await register(peerUrl, deepDomain(9)), 422, /at most 8 labels/, 'SVC_ERR_VALIDATION');
    expect(t.dns.queries()).toBe(0);
  });

  it('stops at the nearest record: a record at the domain is one query', async () => {
    const controller = testKey();
    const domain = deepDomain(6);
    t.dns.records[`_svcid.${domain}`] = [[`svcid=v1; controller=${controller.didKey}; node=https://elsewhere.test;`]];
    t.dns.resetCounts();
    expectRefusal(await register(peerUrl, domain, controller), 409, /elsewhere\.test/, 'SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE');
    expect(t.dns.queries()).toBe(1);
  });
});

describe('DNS queries per client and node-wide', () => {
  it("charges each query to the client's rate limit: a spent budget is a 429 with Retry-After, and DNS is asked no more", async () => {
    // 40 tokens, refilled slowly: the old node let this client make 40 requests of 7 queries each.
    const t = await startTestNode({ publicPort: 0, peerRateLimit: { burst: 40, perSecond: 0.01 } });
    try {
      const peerUrl = t.node.info.public_url as string;
      const statuses: number[] = [];
      let limited: ApiResponse | null = null;
      for (let i = 0; i < 40; i++) {
        const answer = await register(peerUrl, deepDomain(8));
        statuses.push(answer.status);
        if (answer.status === 429 && limited === null) limited = answer;
      }
      expect(limited, `statuses: ${statuses.join(',')}`).not.toBeNull();
      expectRefusal(limited!, 429, /try again in \d+ s/, 'SVC_ERR_RATE_LIMITED');
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
      // Every query and every request took a token of the 40.
      expect(t.dns.queries()).toBeLessThanOrEqual(40);
      expect(statuses.filter((status) => status === 403).length).toBeLessThanOrEqual(5);
      expect(statuses).not.toContain(500);
    } finally {
      await t.stop();
    }
  });

  it("stops asking DNS at the node's own query budget, whoever asks (503, never a registration)", async () => {
    const t = await startTestNode({ publicPort: 0, dnsLimits: { rateBurst: 20, ratePerSecond: 0.01 } });
    try {
      const statuses: number[] = [];
      // From the loopback listener: no client rate limit, only the node's own budget.
      for (let i = 0; i < 10; i++) statuses.push((await register(t.url, deepDomain(8))).status);
      expect(t.dns.queries()).toBeLessThanOrEqual(20);
      expect(statuses).toContain(503);
      expect(statuses).not.toContain(500);
      const refused = await register(t.url, deepDomain(3));
      expectRefusal(refused, 503, /DNS/, 'SVC_ERR_NAMESPACE_DNS_UNAVAILABLE');
    } finally {
      await t.stop();
    }
  });
});

describe('a namespace domain is a name, not an address', () => {
  let t: TestNode;
  let peerUrl: string;
  beforeAll(async () => {
    t = await startTestNode({ publicPort: 0 });
    peerUrl = t.node.info.public_url as string;
  });
  afterAll(() => t.stop());

  const LITERALS = ['127.0.0.1', '127.0.0.1.', '10.0.0.1', '192.168.1.20', '1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', '2001:db8::1'];

  it('is refused (422) by the owner, the public registration, a team and a project, without asking DNS', async () => {
    t.dns.resetCounts();
    for (const domain of LITERALS) {
      expectRefusal(await registerByOwner(t, domain, testKey().didKey), 422, undefined, 'SVC_ERR_VALIDATION');
      expectRefusal(await t.owner('POST', '/v1/node/namespaces', { domain }), 422, undefined, 'SVC_ERR_VALIDATION');
      const refused = await register(peerUrl, domain);
      expectRefusal(refused, 422, undefined, 'SVC_ERR_VALIDATION');
      expect((await t.owner('POST', '/v1/node/teams', { name: 'ops', domain })).status).toBe(422);
    }
    expect(JSON.stringify((await register(peerUrl, '127.0.0.1')).body)).toMatch(/IP address is not a domain/);
    const listed = expectOk(await t.owner('GET', '/v1/node/namespaces')) as { namespaces: { domain: string }[] };
    expect(listed.namespaces.map((namespace) => namespace.domain)).not.toContain('127.0.0.1');
    expect(t.dns.queries()).toBe(0);
  });

  it('still takes names whose labels are digits, short of the last one', async () => {
    expectOk(await registerByOwner(t, '127.0.0.1.example', testKey().didKey), 201);
    expectOk(await registerByOwner(t, '360.example', testKey().didKey), 201);
  });
});

describe('concurrent registrations of one namespace while DNS hangs', () => {
  it('answers one 201 and 409 to the rest (never 500), for outside controllers and node-held keys, and leaves no orphan key', async () => {
    const t = await startTestNode();
    const outside = `${label()}.test`;
    const held = `${label()}.test`;
    t.dns.behaviour[`_svcid.${outside}`] = 'silent';
    t.dns.behaviour[`_svcid.${held}`] = 'silent';

    const [byController, byNode] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, () => registerByOwner(t, outside, testKey().didKey))),
      Promise.all(Array.from({ length: 12 }, () => t.owner('POST', '/v1/node/namespaces', { domain: held }))),
    ]);
    for (const answers of [byController, byNode]) {
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([201, ...Array<number>(11).fill(409)]);
      for (const answer of answers.filter((a) => a.status === 409)) expectRefusal(answer, 409, /while this request waited on DNS/, 'SVC_ERR_NAMESPACE_TAKEN');
    }
    // All 24 waited on one lookup per name.
    expect(t.dns.queries(`_svcid.${outside}`)).toBeLessThanOrEqual(3);
    const winner = byNode.find((answer) => answer.status === 201)!.body as { controller_did: string };

    await t.stop({ keepData: true });
    const stopped = await openStoppedNode(t.dataDir);
    try {
      const namespaceKeys = stopped.keys.filter((key) => key.purpose === 'namespace');
      expect(namespaceKeys.map((key) => key.didKey)).toEqual([winner.controller_did]);
    } finally {
      stopped.close();
      t.removeData();
    }
  });
});
