/**
 * End-to-end encrypted chat between two real nodes (docs/adr/0009-end-to-end-chat.md), each peer
 * table pointing at a recording proxy in front of the other node, so the test sees every byte that
 * crosses: a chat message and its answer are sealed as they leave (one envelope per remote
 * participant, for the key its node publishes), checked and opened on arrival for the participant
 * whose keys the receiving node holds, and no word of them crosses in any request or answer.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { independentSignatureVerifies, type Obj } from '../support/e2ee-independent.ts';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { arrived, historyOf, sessionsOf } from '../support/chat-arrivals.ts';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy.ts';
import { createSelfCustodial } from '../support/self-custodial.ts';

const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
const WAIT = { timeout: 15_000, interval: 25 };
const canary = (what: string): string => `${what}canary${randomBytes(8).toString('hex')}`;

let a: TestNode;
let b: TestNode;
let toA: RecordingProxy;
let toB: RecordingProxy;
let alice: any;
let bob: any;
/** On node B: holds its own keys and publishes none. */
let ned: any;

beforeAll(async () => {
  a = await startTestNode({ outbox: FAST_OUTBOX });
  b = await startTestNode({ outbox: FAST_OUTBOX });
  toA = await startRecordingProxy(a.url);
  toB = await startRecordingProxy(b.url);
  await createNodeNamespace(a, 'a.test');
  await createNodeNamespace(b, 'b.test');
  const pa = await createProject(a, 'pa', 'a.test');
  const pb = await createProject(b, 'pb', 'b.test');
  alice = await createIdentity(a, pa.api_key, persistent('alice'));
  bob = await createIdentity(b, pb.api_key, persistent('bob'));
  ned = (await createSelfCustodial(b, pb.api_key, 'ned')).identity;
  expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: toB.url }), 201);
  expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: toA.url }), 201);
});
afterAll(async () => {
  await Promise.all([toA.close(), toB.close()]);
  await Promise.all([a.stop(), b.stop()]);
});

describe('chat between two nodes, end to end', () => {
  it('crosses sealed both ways: read on arrival, answered, and no word of it in any byte between the nodes', async () => {
    const first = canary('chat');
    const answer = canary('chat');
    const started = expectOk(await a.request('POST', '/v1/chat/sessions', { token: alice.api_key, body: { to_addresses: ['b.test/bob'], message: first } }));
    // The sender reads its own copy, marked as sealed; the row on its node holds no text.
    expect((await historyOf(a, alice.api_key, started.session_id))[0]).toMatchObject({ body: first, end_to_end: true, content_mode: 'server_readable_hosted' });

    const got = await arrived(b, bob.api_key, started.message_id);
    expect(got.message).toMatchObject({
      body: first,
      end_to_end: true,
      content_mode: 'server_readable_hosted',
      signature_status: 'verified',
      from_address: 'a.test/alice',
    });

    const replied = expectOk(await b.request('POST', `/v1/chat/sessions/${got.sessionId}/messages`, { token: bob.api_key, body: { body: answer } }));
    const back = await arrived(a, alice.api_key, replied.message_id);
    expect(back.sessionId).toBe(started.session_id);
    expect(back.message).toMatchObject({ body: answer, end_to_end: true, content_mode: 'server_readable_hosted', signature_status: 'verified' });

    // What crossed: the deliveries each way carry envelopes, each listing only its one remote participant, and no words.
    const crossed = Buffer.concat([...toA.recorded, ...toB.recorded]).toString('utf8');
    expect(crossed).toContain('encrypted_envelope');
    expect([first, answer].filter((secret) => crossed.includes(secret))).toEqual([]);
    const delivery = toB.recorded
      .map((chunk) => chunk.toString('utf8'))
      .find((text) => text.includes(started.message_id) && text.includes('"encrypted_envelope"'));
    const message = (JSON.parse(delivery!) as { messages: Obj[] }).messages.find((m) => m.message_id === started.message_id)!;
    expect(message).toMatchObject({ kind: 'chat', body: '', content_mode: 'encrypted_v2', message_version: 2 });
    const envelope = message.encrypted_envelope as Obj;
    expect(independentSignatureVerifies(envelope)).toBe(true);
    expect(envelope).toMatchObject({ kind: 'chat', conversation_id: started.session_id });
    expect(envelope.recipients).toEqual([expect.objectContaining({ address: 'b.test/bob', did: bob.did_key })]);

    // Neither node's message rows hold the words.
    for (const [t, ids] of [
      [a, [started.message_id, replied.message_id]],
      [b, [started.message_id, replied.message_id]],
    ] as const) {
      const stored = await openNodeDatabase(t.dataDir);
      try {
        const rows = stored.db.prepare('SELECT * FROM chat_messages WHERE message_id IN (?, ?)').all(...ids);
        expect(rows).toHaveLength(2);
        expect([first, answer].filter((secret) => JSON.stringify(rows).includes(secret))).toEqual([]);
      } finally {
        stored.close();
      }
    }
  });

  it('bounces a message to a participant whose node publishes no key for it, naming plaintext as the way', async () => {
    const secret = canary('chat');
    const started = expectOk(await a.request('POST', '/v1/chat/sessions', { token: alice.api_key, body: { to_addresses: ['b.test/ned'], message: secret } }));
    const outbound = async () =>
      (expectOk(await a.request('GET', '/v1/messages/outbound', { token: alice.api_key })).messages as any[]).find((m) => m.message_id === started.message_id);
    await expect.poll(async () => (await outbound())?.status, WAIT).toBe('bounced');
    expect((await outbound()).last_error).toMatch(/legacy_plaintext_v1/);
    expect(await sessionsOf(b, ned.api_key)).toEqual([]);
    expect(Buffer.concat([...toA.recorded, ...toB.recorded]).toString('utf8')).not.toContain(secret);
  });

  it('sends plaintext across only when the send names it, marked as such on arrival', async () => {
    const started = expectOk(
      await a.request('POST', '/v1/chat/sessions', {
        token: alice.api_key,
        body: { to_addresses: ['b.test/bob'], message: 'readable on purpose', content_mode: 'legacy_plaintext_v1' },
      }),
    );
    const got = await arrived(b, bob.api_key, started.message_id);
    expect(got.message).toMatchObject({ body: 'readable on purpose', end_to_end: false, content_mode: 'legacy_plaintext_v1' });
  });
});
