/**
 * Mail and chat between two real nodes on loopback (separate data dirs, real HTTP; DESIGN §8): the
 * peer table, delivery by address both ways, the outbox holding mail while the receiving node is down
 * and delivering it exactly once when it is back, deduplication by message_id, and every refusal
 * (forged signature, an address that resolves to another key, a contacts-only recipient, an
 * unknown recipient) reported to the sender as a bounce or refused at the door.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { renderDnsRecord } from '../../server/crypto/dns-txt.ts';
import { verifyMessageSignature } from '../../server/crypto/message-signing.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { signedMail } from '../support/federation.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { testKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn } from '../support/sse.ts';

/** Retries come quickly here: a real node waits seconds to minutes. */
const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
const WAIT = { timeout: 10_000, interval: 25 };

let a: TestNode;
let b: TestNode;
let bPort: number;
let alice: { agent_id: string; api_key: string; did_key: string };
let bob: { agent_id: string; api_key: string; did_key: string };
let carol: { agent_id: string; api_key: string };
let dave: { agent_id: string; api_key: string };
/** Node A's project: its key makes more identities there. */
let projectKeyA: string;

/** These tests add DNS records between steps: a "no record" answer is not kept for them to expire. */
const DNS_LIMITS = { negativeTtlMs: 0 };

async function startB(dataDir?: string): Promise<TestNode> {
  return startTestNode({ outbox: FAST_OUTBOX, dnsLimits: DNS_LIMITS, ...(dataDir ? { dataDir, port: bPort } : {}) });
}

beforeAll(async () => {
  a = await startTestNode({ outbox: FAST_OUTBOX, dnsLimits: DNS_LIMITS });
  return () => a.stop();
});
beforeAll(async () => {
  b = await startB();
  return () => b.stop();
});
beforeAll(async () => {
  bPort = Number(new URL(b.url).port);
  await createNodeNamespace(a, 'a.test');
  await createNodeNamespace(b, 'b.test');
  const pa = await createProject(a, 'pa', 'a.test');
  projectKeyA = pa.api_key;
  const pb = await createProject(b, 'pb', 'b.test');
  alice = await createIdentity(a, pa.api_key, persistent('alice'));
  dave = await createIdentity(a, pa.api_key, { alias: 'dave' });
  bob = await createIdentity(b, pb.api_key, persistent('bob'));
  carol = await createIdentity(b, pb.api_key, persistent('carol', { address_reachability: 'contacts-only' }));
  expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: b.url }), 201);
  expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: a.url }), 201);
});

/**
 * A send across nodes on federation's plaintext path: these tests are about that path, which a
 * send still takes when it names plaintext (sealed mail is test/api/e2ee-federation.test.ts).
 */
const send = (from: TestNode, key: string, body: Record<string, unknown>) =>
  from.request('POST', '/v1/messages', { token: key, body: { content_mode: 'legacy_plaintext_v1', ...body } });
const inbox = async (t: TestNode, key: string) => expectOk(await t.request('GET', '/v1/messages/inbox?limit=100', { token: key })).messages as any[];
const outbound = async (t: TestNode, key: string) => expectOk(await t.request('GET', '/v1/messages/outbound', { token: key })).messages as any[];
const outboundOf = async (t: TestNode, key: string, id: string) => (await outbound(t, key)).find((m) => m.message_id === id);

describe('the peer table (owner API)', () => {
  it('adds, lists, replaces and removes peers; validates domain and url; owner only', async () => {
    expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'Other.TEST', url: 'https://node.other.test/' }), 201);
    expect(expectOk(await a.owner('GET', '/v1/node/peers')).peers.map((p: any) => [p.domain, p.url])).toEqual([
      ['b.test', b.url],
      ['other.test', 'https://node.other.test'],
    ]);
    expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'other.test', url: 'http://127.0.0.1:9' }), 201);
    expect(expectOk(await a.owner('GET', '/v1/node/peers')).peers.find((p: any) => p.domain === 'other.test').url).toBe('http://127.0.0.1:9');
    expectValidation(await a.owner('POST', '/v1/node/peers', { domain: 'x', url: 'https://n.test' }), 'domain');
    expectValidation(await a.owner('POST', '/v1/node/peers', { domain: 'x.test', url: 'https://n.test/path' }), 'url');
    expectValidation(await a.owner('POST', '/v1/node/peers', { domain: 'x.test', url: 'ftp://n.test' }), 'url');
    expectValidation(await a.owner('POST', '/v1/node/peers', { domain: 'x.test' }), 'url');
    expectRefusal(await a.request('GET', '/v1/node/peers'), 401, /owner token/, 'SVC_ERR_OWNER_TOKEN_REQUIRED');
    // A namespace of this node is delivered here: it cannot have a peer.
    expectRefusal(
      await a.owner('POST', '/v1/node/peers', { domain: 'A.test', url: 'https://n.test' }),
      409,
      /namespace of this node/,
      'SVC_ERR_PEER_DOMAIN_LOCAL',
    );
    expectOk(await a.owner('DELETE', '/v1/node/peers/other.test'));
    expectRefusal(await a.owner('DELETE', '/v1/node/peers/other.test'), 404, undefined, 'SVC_ERR_PEER_NOT_FOUND');
  });
});

describe('mail to another node', () => {
  it('is queued by the sender, delivered by address, and read on the other node with a verifying signature', async () => {
    const sent = expectOk(await send(a, alice.api_key, { to_address: 'b.test/bob', subject: 'Across', body: 'Hello from node A' }));
    expect(sent).toMatchObject({ status: 'queued', messages: [{ to: 'b.test/bob', to_address: 'b.test/bob', to_did: '', status: 'queued' }] });
    await expect.poll(async () => (await inbox(b, bob.api_key)).find((m) => m.message_id === sent.message_id), WAIT).toBeDefined();
    const got = (await inbox(b, bob.api_key)).find((m) => m.message_id === sent.message_id);
    expect(got).toMatchObject({
      from_address: 'a.test/alice',
      from_did: alice.did_key,
      to_address: 'b.test/bob',
      to_did: bob.did_key,
      subject: 'Across',
      body: 'Hello from node A',
      origin: 'remote',
      from_node: a.url,
      from_agent_id: null,
    });
    expect(verifyMessageSignature(got)).toBe('verified');
    expect(got.signature_status).toBe('verified');
    await expect.poll(async () => (await outboundOf(a, alice.api_key, sent.message_id))?.status, WAIT).toBe('delivered');
    expect(await outboundOf(a, alice.api_key, sent.message_id)).toMatchObject({
      to_address: 'b.test/bob',
      delivered_to: b.url,
      attempts: 1,
      subject: 'Across',
    });
  });

  it('goes both ways', async () => {
    const sent = expectOk(await send(b, bob.api_key, { to_address: 'a.test/alice', body: 'Hello back' }));
    await expect.poll(async () => (await inbox(a, alice.api_key)).find((m) => m.message_id === sent.message_id)?.body, WAIT).toBe('Hello back');
  });

  it('mixes local and remote recipients in one send, sealed end to end for both', async () => {
    const sent = expectOk(
      await a.request('POST', '/v1/messages', { token: alice.api_key, body: { to_addresses: ['b.test/bob'], to_aliases: ['dave'], body: 'to both' } }),
    );
    expect(sent.messages.map((m: any) => [m.to, m.status])).toEqual([
      ['dave', 'delivered'],
      ['b.test/bob', 'queued'],
    ]);
    await expect.poll(async () => (await inbox(b, bob.api_key)).find((m) => m.body === 'to both')?.end_to_end, WAIT).toBe(true);
    expect((await inbox(a, dave.api_key)).find((m) => m.body === 'to both')?.end_to_end).toBe(true);
  });

  it('needs a sender address: a node can only check senders it can look up', async () => {
    expectRefusal(await send(a, dave.api_key, { to_address: 'b.test/bob', body: 'x' }), 422, /address/, 'SVC_ERR_SENDER_ADDRESS_REQUIRED');
  });
});

describe('arrival', () => {
  it('wakes the recipient: its event stream shows the mail the moment it is stored', async () => {
    const response = await connectSse(`${b.url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(15))}`, { token: bob.api_key });
    const stream = response.stream!;
    try {
      expect((await stream.next()).event).toBe('connected');
      const sent = expectOk(await send(a, alice.api_key, { to_address: 'b.test/bob', subject: 'Wake up', body: 'ping' }));
      let frame = await stream.next();
      while (frame.event !== 'mail_message' || frame.data.message_id !== sent.message_id) frame = await stream.next();
      expect(frame.data).toMatchObject({ from_address: 'a.test/alice', subject: 'Wake up' });
    } finally {
      stream.close();
    }
  });

  it("checks DNS too when the sender's node reports its namespace DNS-verified", async () => {
    const namespace = await createNodeNamespace(a, 'v.test');
    a.dns.records['_svcid.v.test'] = [[renderDnsRecord({ controllerDid: namespace.controller_did })]];
    expect(expectOk(await a.request('POST', '/v1/namespaces/v.test/verify')).verification_status).toBe('verified');
    const vic = await createIdentity(a, (await createProject(a, 'pv', 'v.test')).api_key, persistent('vic'));
    expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'v.test', url: a.url }), 201);

    // B's DNS does not know v.test: the claim cannot be checked there, so the mail is refused.
    const refused = expectOk(await send(a, vic.api_key, { to_address: 'b.test/bob', body: 'from a verified namespace' }));
    await expect.poll(async () => (await outboundOf(a, vic.api_key, refused.message_id))?.status, WAIT).toBe('bounced');
    expect((await outboundOf(a, vic.api_key, refused.message_id)).last_error).toMatch(/claims DNS verification/);

    // Once B's DNS names the same controller, it is delivered.
    b.dns.records['_svcid.v.test'] = [[renderDnsRecord({ controllerDid: namespace.controller_did })]];
    const sent = expectOk(await send(a, vic.api_key, { to_address: 'b.test/bob', body: 'and now?' }));
    await expect.poll(async () => (await outboundOf(a, vic.api_key, sent.message_id))?.status, WAIT).toBe('delivered');
  });
});

describe('finding the node for a domain', () => {
  it('asks DNS (_svcid node=) when the peer table has no entry, and the peer table again once it has one', async () => {
    const controller = testKey().didKey;
    a.dns.records['_svcid.c.test'] = [[renderDnsRecord({ controllerDid: controller, origin: 'https://node.c.test' })]];
    const sent = expectOk(await send(a, alice.api_key, { to_address: 'c.test/cy', body: 'via DNS' }));
    await expect
      .poll(async () => (await outboundOf(a, alice.api_key, sent.message_id))?.last_error ?? '', WAIT)
      .toMatch(/could not reach https:\/\/node\.c\.test/);
    expect((await outboundOf(a, alice.api_key, sent.message_id)).status).toBe('queued');

    // The owner points c.test at node B by hand: the waiting mail is tried at once, and B refuses
    // it by name (B hosts no c.test), which the sender gets back as a bounce.
    expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'c.test', url: b.url }), 201);
    await expect.poll(async () => (await outboundOf(a, alice.api_key, sent.message_id))?.status, WAIT).toBe('bounced');
    expect((await outboundOf(a, alice.api_key, sent.message_id)).last_error).toMatch(/c\.test\/cy is not hosted on this node/);
    expectOk(await a.owner('DELETE', '/v1/node/peers/c.test'));
  });

  it('keeps waiting (and says why) while neither the peer table nor DNS names a node', async () => {
    const sent = expectOk(await send(a, alice.api_key, { to_address: 'nowhere.test/x', body: 'lost?' }));
    await expect.poll(async () => (await outboundOf(a, alice.api_key, sent.message_id))?.last_error ?? '', WAIT).toMatch(/no node is known for nowhere\.test/);
    expect((await outboundOf(a, alice.api_key, sent.message_id)).status).toBe('queued');
  });
});

describe('delivery while the receiving node is down', () => {
  it('keeps retrying, then delivers exactly once when the node is back', async () => {
    const dataDir = b.dataDir;
    await b.stop({ keepData: true });
    const sent = expectOk(await send(a, alice.api_key, { to_address: 'b.test/bob', subject: 'While you were out', body: 'queued' }));
    await expect.poll(async () => (await outboundOf(a, alice.api_key, sent.message_id))?.attempts ?? 0, WAIT).toBeGreaterThanOrEqual(2);
    const waiting = await outboundOf(a, alice.api_key, sent.message_id);
    expect(waiting).toMatchObject({ status: 'queued' });
    expect(waiting.last_error).toMatch(/could not reach/);

    b = await startB(dataDir);
    await expect.poll(async () => (await outboundOf(a, alice.api_key, sent.message_id))?.status, WAIT).toBe('delivered');
    const copies = (await inbox(b, bob.api_key)).filter((m) => m.message_id === sent.message_id);
    expect(copies).toHaveLength(1);
  });

  it('acknowledges a repeated delivery without storing it twice', async () => {
    const got = (await inbox(b, bob.api_key)).find((m) => m.body === 'queued');
    const signed = JSON.parse(got.signed_payload);
    const again = {
      v: 1,
      kind: 'mail',
      message_id: got.message_id,
      from: got.from_address,
      from_did: got.from_did,
      from_stable_id: got.from_stable_id,
      to: signed.to,
      subject: got.subject,
      body: got.body,
      priority: got.priority,
      timestamp: signed.timestamp,
      signature: got.signature,
      signed_payload: got.signed_payload,
    };
    expect(expectOk(await b.request('POST', '/v1/federation/messages', { body: again }))).toEqual({ message_id: got.message_id, status: 'duplicate' });
    expect((await inbox(b, bob.api_key)).filter((m) => m.message_id === got.message_id)).toHaveLength(1);
  });
});

describe('key changes while mail waits in the outbox', () => {
  /** Holds mail for b.test in A's outbox (its peer points nowhere), runs `change`, then lets it go. */
  async function queuedAcross(from: { api_key: string }, change: () => Promise<void>): Promise<string> {
    expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: 'http://127.0.0.1:9' }), 201);
    const sent = expectOk(await send(a, from.api_key, { to_address: 'b.test/bob', body: 'signed before the change' }));
    await expect.poll(async () => (await outboundOf(a, from.api_key, sent.message_id))?.attempts ?? 0, WAIT).toBeGreaterThanOrEqual(1);
    await change();
    expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: b.url }), 201);
    return sent.message_id;
  }

  it('delivers mail signed with a key the sender has since rotated away from (its did:svc log vouches)', async () => {
    const erin = await createIdentity(a, projectKeyA, persistent('erin'));
    const id = await queuedAcross(erin, async () => {
      expectOk(await a.request('PUT', '/v1/agents/me/rotate', { token: erin.api_key }));
    });
    await expect.poll(async () => (await outboundOf(a, erin.api_key, id))?.status, WAIT).toBe('delivered');
    const got = (await inbox(b, bob.api_key)).find((m) => m.message_id === id);
    expect(got).toMatchObject({ from_address: 'a.test/erin', from_did: erin.did_key });
    expect(verifyMessageSignature(got)).toBe('verified');
  });

  it("delivers mail signed by an address's previous identity after a controller-signed replacement", async () => {
    const frank = await createIdentity(a, projectKeyA, persistent('frank'));
    let successor = '';
    const id = await queuedAcross(frank, async () => {
      successor = expectOk(await a.request('POST', `/api/v1/agents/${frank.agent_id}/replace`, { token: a.node.ownerToken })).did_key;
    });
    // The replaced identity's key no longer works, so the arrival is checked on the other side.
    await expect
      .poll(async () => (await inbox(b, bob.api_key)).find((m) => m.message_id === id), WAIT)
      .toMatchObject({
        from_address: 'a.test/frank',
        from_did: frank.did_key,
      });
    expect(successor).not.toBe(frank.did_key);
  });
});

describe('chat with another node', () => {
  const startChat = (from: TestNode, key: string, body: Record<string, unknown>) => from.request('POST', '/v1/chat/sessions', { token: key, body });
  const sessions = async (t: TestNode, key: string) => expectOk(await t.request('GET', '/v1/chat/sessions', { token: key })).sessions as any[];
  const history = async (t: TestNode, key: string, sessionId: string) =>
    expectOk(await t.request('GET', `/v1/chat/sessions/${sessionId}/messages?limit=50`, { token: key })).messages as any[];

  it('goes both ways by address, each node keeping its own copy of the two-party session', async () => {
    const started = expectOk(await startChat(a, alice.api_key, { to_addresses: ['b.test/bob'], message: 'Hi Bob, quick question?' }));
    expect(started.participants.map((p: any) => [p.address, p.agent_id === null])).toEqual([
      ['a.test/alice', false],
      ['b.test/bob', true],
    ]);
    await expect.poll(async () => (await sessions(b, bob.api_key)).find((s) => s.participant_addresses.includes('a.test/alice')), WAIT).toBeDefined();
    const there = (await sessions(b, bob.api_key)).find((s) => s.participant_addresses.includes('a.test/alice'));
    expect(there).toMatchObject({ participants: ['alice'], unread_count: 1 });
    const [first] = await history(b, bob.api_key, there.session_id);
    expect(first).toMatchObject({
      message_id: started.message_id,
      from_address: 'a.test/alice',
      from_did: alice.did_key,
      body: 'Hi Bob, quick question?',
      from_agent_id: null,
      // Sealed end to end as it left: the node checked the envelope's signature, and bob's reader gets no signature to misread.
      end_to_end: true,
      content_mode: 'server_readable_hosted',
      signature_status: 'verified',
    });

    // Bob answers in his copy of the session; it lands in Alice's.
    const reply = expectOk(
      await b.request('POST', `/v1/chat/sessions/${there.session_id}/messages`, {
        token: bob.api_key,
        body: { body: 'Sure, go ahead.', reply_to: started.message_id },
      }),
    );
    await expect.poll(async () => (await history(a, alice.api_key, started.session_id)).map((m) => m.message_id), WAIT).toContain(reply.message_id);
    const answered = (await history(a, alice.api_key, started.session_id)).find((m) => m.message_id === reply.message_id);
    expect(answered).toMatchObject({ from_address: 'b.test/bob', from_did: bob.did_key, reply_to: started.message_id, body: 'Sure, go ahead.' });

    // The same pair keeps one session on each side.
    const again = expectOk(await startChat(a, alice.api_key, { to_addresses: ['b.test/bob'], message: 'Thanks!' }));
    expect(again.session_id).toBe(started.session_id);
    await expect.poll(async () => (await history(b, bob.api_key, there.session_id)).length, WAIT).toBe(3);
    expect((await sessions(b, bob.api_key)).filter((s) => s.participant_addresses.includes('a.test/alice'))).toHaveLength(1);
  });

  it('is two-party across nodes, and needs a sender address', async () => {
    expectRefusal(
      await startChat(a, alice.api_key, { to_addresses: ['b.test/bob'], to_aliases: ['dave'], message: 'group?' }),
      422,
      /two participants/,
      'SVC_ERR_CHAT_REMOTE_GROUP',
    );
    expectRefusal(await startChat(a, dave.api_key, { to_addresses: ['b.test/bob'], message: 'hi' }), 422, /address/, 'SVC_ERR_SENDER_ADDRESS_REQUIRED');
  });

  it('bounces a chat to a contacts-only identity that does not know the sender, and delivers once it has answered', async () => {
    const pb = await createProject(b, 'pb2', 'b.test');
    const gina = await createIdentity(b, pb.api_key, persistent('gina', { address_reachability: 'contacts-only' }));
    const cold = expectOk(await startChat(a, alice.api_key, { to_addresses: ['b.test/gina'], message: 'cold open' }));
    await expect.poll(async () => (await outboundOf(a, alice.api_key, cold.message_id))?.status, WAIT).toBe('bounced');
    expect((await outboundOf(a, alice.api_key, cold.message_id)).subject).toBe('Chat: cold open');
    const bounce = (await inbox(a, alice.api_key)).find((m) => m.origin === 'bounce' && m.body.includes(cold.message_id));
    expect(bounce.body).toMatch(/chat message to b\.test\/gina could not be delivered[\s\S]*only accepts messages from contacts/);

    // Gina writes first: now her session with Alice exists and she has spoken in it.
    const hers = expectOk(await startChat(b, gina.api_key, { to_addresses: ['a.test/alice'], message: 'hello Alice, it is Gina' }));
    await expect.poll(async () => (await sessions(a, alice.api_key)).some((s) => s.participant_addresses.includes('b.test/gina')), WAIT).toBe(true);
    const withGina = (await sessions(a, alice.api_key)).find((s) => s.participant_addresses.includes('b.test/gina'));
    const answer = expectOk(await a.request('POST', `/v1/chat/sessions/${withGina.session_id}/messages`, { token: alice.api_key, body: { body: 'hi Gina' } }));
    await expect.poll(async () => (await history(b, gina.api_key, hers.session_id)).map((m) => m.message_id), WAIT).toContain(answer.message_id);
  });

  it('acknowledges a repeated chat delivery without storing it twice', async () => {
    // A plaintext message (named so), whose delivery the test can write again from what bob reads.
    const plain = expectOk(
      await startChat(a, alice.api_key, { to_addresses: ['b.test/bob'], message: 'readable on purpose', content_mode: 'legacy_plaintext_v1' }),
    );
    const there = (await sessions(b, bob.api_key)).find((s) => s.participant_addresses.includes('a.test/alice'));
    await expect.poll(async () => (await history(b, bob.api_key, there.session_id)).map((m) => m.message_id), WAIT).toContain(plain.message_id);
    const first = (await history(b, bob.api_key, there.session_id)).find((m) => m.message_id === plain.message_id);
    const signed = JSON.parse(first.signed_payload);
    const again = {
      v: 1,
      kind: 'chat',
      message_id: first.message_id,
      from: first.from_address,
      from_did: first.from_did,
      from_stable_id: first.from_stable_id,
      to: signed.to,
      body: first.body,
      reply_to: first.reply_to,
      wait_seconds: first.wait_seconds,
      hang_on: first.hang_on,
      sender_leaving: first.sender_leaving,
      timestamp: signed.timestamp,
      signature: first.signature,
      signed_payload: first.signed_payload,
    };
    const before = (await history(b, bob.api_key, there.session_id)).length;
    expect(expectOk(await b.request('POST', '/v1/federation/messages', { body: again }))).toEqual({ message_id: first.message_id, status: 'duplicate' });
    expect(await history(b, bob.api_key, there.session_id)).toHaveLength(before);
    expectRefusal(
      await b.request('POST', '/v1/federation/messages', { body: { ...again, body: 'altered' } }),
      403,
      /canonical envelope/,
      'SVC_ERR_FEDERATION_SIGNATURE_INVALID',
    );
  });
});

describe('refusals', () => {
  it('bounces mail to a contacts-only recipient back to the sender with the reason', async () => {
    const sent = expectOk(await send(a, alice.api_key, { to_address: 'b.test/carol', subject: 'Cold call', body: 'hi' }));
    await expect.poll(async () => (await outboundOf(a, alice.api_key, sent.message_id))?.status, WAIT).toBe('bounced');
    expect((await outboundOf(a, alice.api_key, sent.message_id)).last_error).toMatch(/only accepts messages from contacts/);
    const bounce = (await inbox(a, alice.api_key)).find((m) => m.origin === 'bounce' && m.body.includes(sent.message_id));
    expect(bounce).toMatchObject({ from_alias: 'postmaster', subject: 'Undeliverable: Cold call', from_agent_id: null, signature_status: 'unverified' });
    expect(bounce.body).toContain('b.test/carol');
    expect(bounce.body).toMatch(/only accepts messages from contacts/);
    expect((await inbox(b, carol.api_key)).some((m) => m.message_id === sent.message_id)).toBe(false);
  });

  it('delivers to a contacts-only recipient once the sender is a contact', async () => {
    expectOk(await b.request('POST', '/v1/contacts', { token: carol.api_key, body: { contact_address: 'a.test/alice' } }));
    const sent = expectOk(await send(a, alice.api_key, { to_address: 'b.test/carol', body: 'now we know each other' }));
    await expect.poll(async () => (await inbox(b, carol.api_key)).some((m) => m.message_id === sent.message_id), WAIT).toBe(true);
  });

  it('bounces mail to an address the other node does not have', async () => {
    const sent = expectOk(await send(a, alice.api_key, { to_address: 'b.test/nobody', body: 'hello?' }));
    await expect.poll(async () => (await outboundOf(a, alice.api_key, sent.message_id))?.status, WAIT).toBe('bounced');
    expect((await outboundOf(a, alice.api_key, sent.message_id)).last_error).toMatch(/not found/i);
  });

  it('refuses a message altered after signing', async () => {
    const mail = signedMail(testKey(), { from: 'a.test/alice', to: 'b.test/bob' });
    expectRefusal(
      await b.request('POST', '/v1/federation/messages', { body: { ...mail, body: 'changed' } }),
      403,
      /canonical envelope/,
      'SVC_ERR_FEDERATION_SIGNATURE_INVALID',
    );
  });

  it('refuses a forged signature', async () => {
    const mail = signedMail(testKey(), { from: 'a.test/alice', to: 'b.test/bob' });
    expectRefusal(
      await b.request('POST', '/v1/federation/messages', { body: { ...mail, from_did: alice.did_key } }),
      403,
      undefined,
      'SVC_ERR_FEDERATION_SIGNATURE_INVALID',
    );
    const other = signedMail(testKey(), { from: 'a.test/alice', to: 'b.test/bob' });
    expectRefusal(
      await b.request('POST', '/v1/federation/messages', { body: { ...mail, signature: other.signature } }),
      403,
      /signature/,
      'SVC_ERR_FEDERATION_SIGNATURE_INVALID',
    );
  });

  it('refuses a sender whose address resolves to another key on its node', async () => {
    const mail = signedMail(testKey(), { from: 'a.test/alice', to: 'b.test/bob', body: 'I am alice, honest' });
    expectRefusal(await b.request('POST', '/v1/federation/messages', { body: mail }), 403, /resolves to another key/, 'SVC_ERR_SENDER_KEY_MISMATCH');
    expect((await inbox(b, bob.api_key)).some((m) => m.body === 'I am alice, honest')).toBe(false);
  });

  it('refuses senders it cannot check: unknown domains, its own namespaces, addresses that do not exist', async () => {
    const key = testKey();
    expectRefusal(
      await b.request('POST', '/v1/federation/messages', { body: signedMail(key, { from: 'z.test/zed', to: 'b.test/bob' }) }),
      403,
      /no node is known for z\.test/,
      'SVC_ERR_SENDER_NODE_UNKNOWN',
    );
    expectRefusal(
      await b.request('POST', '/v1/federation/messages', { body: signedMail(key, { from: 'b.test/bob', to: 'b.test/bob' }) }),
      403,
      /namespace of this node/,
      'SVC_ERR_SENDER_NAMESPACE_LOCAL',
    );
    expectRefusal(
      await b.request('POST', '/v1/federation/messages', { body: signedMail(key, { from: 'a.test/ghost', to: 'b.test/bob' }) }),
      403,
      /does not exist/,
      'SVC_ERR_SENDER_NOT_FOUND',
    );
  });

  it('refuses malformed messages with a validation error', async () => {
    expectValidation(await b.request('POST', '/v1/federation/messages', { body: { v: 1, kind: 'mail' } }), 'message_id');
    expectValidation(
      await b.request('POST', '/v1/federation/messages', { body: { ...signedMail(testKey(), { from: 'a.test/alice', to: 'b.test/bob' }), extra: 1 } }),
      'extra',
    );
  });
});
