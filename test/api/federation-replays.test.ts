/**
 * Replayed and probing deliveries to the federation routes, performed for real against a node's
 * peer listener (each client a loopback source address of its own):
 * - copies of a real signed message, replayed in batches from two addresses, cost those clients
 *   their rate limit (a token a copy) and never the sending domain's budget, so the real sender's
 *   next mail still arrives;
 * - a peer that signs with a key of its own cannot learn whether a message_id is stored here: it
 *   gets the same answer for a taken id as for a fresh one until its sender is proven.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { signedMail, vouchingNode } from '../support/federation.ts';
import { rawRequest } from '../support/http.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { testKey, type TestKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { remoteServers } from '../support/remote-server.ts';

const servers = remoteServers();
afterAll(() => servers.closeAll());

/** A POST of `body` to the peer listener from the loopback address `from`, on a connection of its own. */
const postFrom = (t: TestNode, path: string, body: unknown, from: string) =>
  rawRequest(t.node.info.public_url as string, 'POST', path, {
    localAddress: from,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', connection: 'close' },
  });
const batchFrom = (t: TestNode, messages: unknown[], from: string) => postFrom(t, '/v1/federation/messages/batch', { v: 1, messages }, from);

describe('replayed copies of a real message', () => {
  const BURST = 20;
  const DOMAIN_MESSAGES = 100;
  let b: TestNode;
  let bob: { api_key: string };
  let zed: TestKey;

  beforeAll(async () => {
    b = await startTestNode({
      publicPort: 0,
      // Nothing comes back during the test: every token counted is one spent.
      peerRateLimit: { burst: BURST, perSecond: 0.01 },
      domainBudget: { messages: { burst: DOMAIN_MESSAGES, perSecond: 0.01 }, bytes: { burst: 1 << 30, perSecond: 1 << 20 } },
    });
    return () => b.stop();
  });
  beforeAll(async () => {
    await createNodeNamespace(b, 'b.test');
    bob = await createIdentity(b, (await createProject(b, 'pb', 'b.test')).api_key, persistent('bob'));
    zed = testKey();
    expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'x.test', url: (await vouchingNode(servers, 'x.test', { zed })).url }), 201);
  });

  it("cost the clients that send them a token each, never the sending domain's budget", async () => {
    const real = signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob', body: 'the real one' });
    const copies = Array.from({ length: 64 }, () => real);
    // Copies within the batch that brings it: the first is stored (and charged to x.test), the rest
    // are duplicates the client pays for, after the two questions about the new sender (the
    // request's own token and one more).
    const arrival = (await batchFrom(b, copies, '127.0.0.9')).body.results as any[];
    expect(arrival[0].status).toBe('delivered');
    expect(arrival.slice(1).map((r) => r.status)).toEqual([
      ...Array.from({ length: BURST - 2 }, () => 'duplicate'),
      ...Array.from({ length: 64 - BURST + 1 }, () => 'deferred'),
    ]);

    const answers = await Promise.all(
      ['127.0.0.2', '127.0.0.3'].map(async (from) => {
        const seen = [];
        for (let round = 0; round < 6; round++) seen.push(await batchFrom(b, copies, from));
        return seen;
      }),
    );
    for (const seen of answers) {
      // The first request pays a token a copy, as far as its client's bucket goes; the rest are refused at the door.
      const [first, ...rest] = seen;
      expect(first!.status).toBe(200);
      const statuses = (first!.body.results as any[]).map((r) => r.status);
      expect(statuses.filter((s) => s === 'duplicate')).toHaveLength(BURST);
      expect(statuses.filter((s) => s === 'deferred')).toHaveLength(64 - BURST);
      expect((first!.body.results as any[]).find((r) => r.status === 'deferred')).toMatchObject({
        code: 'SVC_ERR_RATE_LIMITED',
        detail: expect.stringMatching(/too many requests from this client/),
      });
      for (const answer of rest) expectRefusal(answer, 429, undefined, 'SVC_ERR_RATE_LIMITED');
    }

    // The real sender's budget is whole: its next mails arrive, as many as it allows.
    const next = Array.from({ length: 64 }, (_, i) => signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob', body: `next ${i}` }));
    const { results } = (await batchFrom(b, next, '127.0.0.4')).body as { results: any[] };
    expect(results.map((r) => r.status)).toEqual(next.map(() => 'delivered'));
    const inbox = expectOk(await b.request('GET', '/v1/messages/inbox?limit=100', { token: bob.api_key })).messages as any[];
    expect(inbox.filter((m) => m.body === 'the real one')).toHaveLength(1);
  });

  it('give a single copy no refund: each costs its request', async () => {
    const real = signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob', body: 'single real' });
    expect((await postFrom(b, '/v1/federation/messages', real, '127.0.0.8')).body.status).toBe('delivered');
    const statuses: number[] = [];
    for (let i = 0; i < BURST + 3; i++) statuses.push((await postFrom(b, '/v1/federation/messages', real, '127.0.0.5')).status);
    expect(statuses).toEqual([...Array.from({ length: BURST }, () => 200), 429, 429, 429]);
  });
});

describe('a message_id another message holds', () => {
  let b: TestNode;
  let zed: TestKey;
  let amy: TestKey;
  let stored: ReturnType<typeof signedMail>;

  beforeAll(async () => {
    b = await startTestNode({ publicPort: 0 });
    return () => b.stop();
  });
  beforeAll(async () => {
    await createNodeNamespace(b, 'b.test');
    await createIdentity(b, (await createProject(b, 'pb', 'b.test')).api_key, persistent('bob'));
    zed = testKey();
    amy = testKey();
    expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'x.test', url: (await vouchingNode(servers, 'x.test', { zed, amy })).url }), 201);
    stored = signedMail(zed, { from: 'x.test/zed', to: 'b.test/bob', body: 'stored' });
    expect((await postFrom(b, '/v1/federation/messages', stored, '127.0.0.9')).body.status).toBe('delivered');
  });

  /** A mail signed by a key of the prober's own, claiming an address that key does not hold, under `messageId`. */
  const probe = (messageId: string, from: string) => signedMail(testKey(), { from, to: 'b.test/bob', body: 'probe', messageId });

  it('is not told to an unproven sender: a taken id and a fresh one get the same answer, on both routes', async () => {
    for (const from of ['x.test/mallory', 'x.test/zed', 'nowhere.test/mallory']) {
      const taken = await postFrom(b, '/v1/federation/messages', probe(stored.message_id, from), '127.0.0.2');
      const fresh = await postFrom(b, '/v1/federation/messages', probe(crypto.randomUUID(), from), '127.0.0.2');
      expect(taken.status, from).toBe(403);
      expect({ ...taken.body }, from).toEqual({ ...fresh.body });
      const { results } = (await batchFrom(b, [probe(stored.message_id, from), probe(crypto.randomUUID(), from)], '127.0.0.3')).body as { results: any[] };
      expect(results[0].status, from).toBe('refused');
      expect([results[0].code, results[0].detail], from).toEqual([results[1].code, results[1].detail]);
    }
  });

  it('is still refused to a proven sender with another message under it', async () => {
    const other = signedMail(amy, { from: 'x.test/amy', to: 'b.test/bob', body: 'another under the same id', messageId: stored.message_id });
    expectRefusal(await postFrom(b, '/v1/federation/messages', other, '127.0.0.4'), 409, /already taken/, 'SVC_ERR_MESSAGE_ID_TAKEN');
  });
});
