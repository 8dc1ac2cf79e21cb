/**
 * What travels between two real nodes on loopback beyond the message itself: a mail's
 * `thread_id`, and mail and chat a self-custodial identity signed with its own key. The client is
 * test/support/self-signer.ts (node:crypto and its own canonical JSON, none of the node's signing
 * code); the receiving node checks its signature and its sender's address as it does for a
 * custodial sender's.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MailMessage, SentPage } from '../../contract/core/mail.ts';
import { verifyMessageSignature } from '../../server/crypto/message-signing.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, init, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { genesisEntry, selfKey, signedFields, type Envelope, type SelfKey } from '../support/self-signer.ts';

const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
const WAIT = { timeout: 10_000, interval: 25 };

let a: TestNode;
let b: TestNode;
let alice: { api_key: string; did_key: string };
let bob: { api_key: string; did_key: string; did_aw: string };
/** Self-custodial, on node A, with the address a.test/sally. */
let sally: { api_key: string; agent_id: string };
let key: SelfKey;

beforeAll(async () => {
  a = await startTestNode({ outbox: FAST_OUTBOX });
  return () => a.stop();
});
beforeAll(async () => {
  b = await startTestNode({ outbox: FAST_OUTBOX });
  return () => b.stop();
});
beforeAll(async () => {
  await createNodeNamespace(a, 'a.test');
  await createNodeNamespace(b, 'b.test');
  const pa = await createProject(a, 'pa', 'a.test');
  const pb = await createProject(b, 'pb', 'b.test');
  alice = await createIdentity(a, pa.api_key, persistent('alice'));
  bob = await createIdentity(b, pb.api_key, persistent('bob'));
  key = selfKey();
  const genesis = genesisEntry(key);
  expectOk(await a.request('POST', '/v1/did', { body: { ...genesis.payload, proof: genesis.signature } }));
  sally = expectOk(await init(a, pa.api_key, persistent('sally', { custody: 'self', did: key.didKey, public_key: key.publicKey.toString('base64') })), 201);
  expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: b.url }), 201);
  expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: a.url }), 201);
});

/**
 * Sends on federation's plaintext path, named as such: these tests replay and check the signed
 * plaintext wire (sealed mail across nodes is test/api/e2ee-federation.test.ts).
 */
const send = (from: TestNode, token: string, body: Record<string, unknown>) =>
  from.request('POST', '/v1/messages', { token, body: { content_mode: 'legacy_plaintext_v1', ...body } });
const inbox = async (t: TestNode, token: string, query = '') =>
  expectOk(await t.request('GET', `/v1/messages/inbox?limit=100${query}`, { token })).messages as MailMessage[];
const sent = async (t: TestNode, token: string, query = '') =>
  SentPage.parse(expectOk(await t.request('GET', `/v1/messages/sent?limit=100${query}`, { token }))).messages;
const arrived = async (t: TestNode, token: string, id: string) => {
  await expect.poll(async () => (await inbox(t, token)).some((m) => m.message_id === id), WAIT).toBe(true);
  return MailMessage.parse((await inbox(t, token)).find((m) => m.message_id === id));
};

describe('thread_id across nodes', () => {
  it('travels with the mail, is stored on arrival and keeps the thread on both sides', async () => {
    const first = expectOk(await send(a, alice.api_key, { to_address: 'b.test/bob', subject: 'Plan', body: 'the first of a thread' }));
    const thread = first.message_id as string;
    const reply = expectOk(await send(a, alice.api_key, { to_address: 'b.test/bob', subject: 'Re: Plan', body: 'more', thread_id: thread }));
    expect((await arrived(b, bob.api_key, reply.message_id)).thread_id).toBe(thread);
    expect((await arrived(b, bob.api_key, thread)).thread_id).toBeNull();
    // The recipient's thread view holds both; its answer in the thread goes back with it.
    expect((await inbox(b, bob.api_key, `&thread_id=${thread}`)).map((m) => m.message_id).sort()).toEqual([thread, reply.message_id].sort());
    const back = expectOk(await send(b, bob.api_key, { to_address: 'a.test/alice', body: 'agreed', thread_id: thread }));
    expect((await arrived(a, alice.api_key, back.message_id)).thread_id).toBe(thread);
    // The sender's Sent shows the thread of mail it sent to another node, and its thread view keeps it.
    expect((await sent(a, alice.api_key)).find((m) => m.message_id === reply.message_id)?.thread_id).toBe(thread);
    expect((await sent(a, alice.api_key, `&thread_id=${thread}`)).map((m) => m.message_id).sort()).toEqual([thread, reply.message_id].sort());
  });

  it('is optional on the wire: a message from a node that sends none is stored without a thread', async () => {
    const mail = (await inbox(b, bob.api_key)).find((m) => m.body === 'the first of a thread');
    expect(mail?.thread_id).toBeNull();
    // A malformed thread_id from a peer is refused like any malformed field.
    const signed = JSON.parse(mail!.signed_payload);
    const wire = {
      v: 1,
      kind: 'mail',
      message_id: mail!.message_id,
      from: mail!.from_address,
      from_did: mail!.from_did,
      from_stable_id: mail!.from_stable_id,
      to: signed.to,
      subject: mail!.subject,
      body: mail!.body,
      priority: mail!.priority,
      timestamp: signed.timestamp,
      signature: mail!.signature,
      signed_payload: mail!.signed_payload,
    };
    expect(expectOk(await b.request('POST', '/v1/federation/messages', { body: wire }))).toEqual({ message_id: mail!.message_id, status: 'duplicate' });
    expectRefusal(await b.request('POST', '/v1/federation/messages', { body: { ...wire, thread_id: 'not a uuid' } }), 422, undefined, 'SVC_ERR_VALIDATION');
  });
});

describe('a self-custodial identity writing to another node', () => {
  const mailTo = (overrides: Partial<Envelope> = {}): Envelope => ({
    type: 'mail',
    from: 'a.test/sally',
    to: 'b.test/bob',
    from_stable_id: key.didSvc,
    subject: 'from my own key',
    body: 'signed by the client, across nodes',
    ...overrides,
  });

  it('sends mail the other node verifies: stored there exactly as the client signed it', async () => {
    const envelope = mailTo();
    const signed = signedFields(key, envelope);
    const result = expectOk(await send(a, sally.api_key, { to_address: 'b.test/bob', subject: envelope.subject, body: envelope.body, ...signed }));
    expect(result.message_id).toBe(signed.message_id);
    const got = await arrived(b, bob.api_key, signed.message_id!);
    expect(got).toMatchObject({
      from_address: 'a.test/sally',
      from_did: key.didKey,
      from_stable_id: key.didSvc,
      signature: signed.signature,
      signed_payload: signed.signed_payload,
      signature_status: 'verified',
      origin: 'remote',
      from_node: a.url,
    });
    expect(verifyMessageSignature(got)).toBe('verified');
  });

  it("signs the envelope as an upstream client may: without priority or from_stable_id, with the recipient's keys, in a thread", async () => {
    const envelope = mailTo({ from_stable_id: null, to_did: bob.did_key, to_stable_id: bob.did_aw, body: 'minimal envelope' });
    const signed = signedFields(key, envelope);
    const thread = randomUUID();
    expectOk(await send(a, sally.api_key, { to_address: 'b.test/bob', subject: envelope.subject, body: envelope.body, thread_id: thread, ...signed }));
    const got = await arrived(b, bob.api_key, signed.message_id!);
    expect(got).toMatchObject({
      from_did: key.didKey,
      signed_payload: signed.signed_payload,
      signature_status: 'verified',
      thread_id: thread,
      priority: 'normal',
    });
  });

  it('cannot aim a signature at another identity of the receiving node, or sign as anything but its address', async () => {
    // Signed for bob's key but delivered to carol: the receiving node refuses it, and the sender gets a bounce.
    const carol = await createIdentity(b, (await createProject(b, 'pc', 'b.test')).api_key, persistent('carol'));
    const wrongKey = mailTo({ to: 'b.test/carol', to_did: bob.did_key, body: 'meant for bob' });
    const signed = signedFields(key, wrongKey);
    expectOk(await send(a, sally.api_key, { to_address: 'b.test/carol', subject: wrongKey.subject, body: wrongKey.body, ...signed }));
    await expect
      .poll(async () => (await inbox(a, sally.api_key)).find((m) => m.origin === 'bounce' && m.body.includes(signed.message_id!))?.body ?? '', WAIT)
      .toMatch(/recipient/);
    expect((await inbox(b, carol.api_key)).some((m) => m.message_id === signed.message_id)).toBe(false);
    // The other node checks a sender by its address, so the envelope must name it.
    const byAlias = mailTo({ from: 'sally', body: 'from my alias' });
    expectRefusal(
      await send(a, sally.api_key, { to_address: 'b.test/bob', subject: byAlias.subject, body: byAlias.body, ...signedFields(key, byAlias) }),
      422,
      /address/,
      'SVC_ERR_SIGNED_PAYLOAD_MISMATCH',
    );
  });

  it('chats with an identity on another node, verified there; the answer comes back', async () => {
    const first: Envelope = { type: 'chat', from: 'a.test/sally', to: 'b.test/bob', body: 'hi bob, from my own key', wait_seconds: 0 };
    const signed = signedFields(key, first);
    const started = expectOk(
      await a.request('POST', '/v1/chat/sessions', {
        token: sally.api_key,
        body: { to_addresses: ['b.test/bob'], message: first.body, wait_seconds: 0, ...signed },
      }),
    );
    expect(started.message_id).toBe(signed.message_id);
    const sessions = async () => expectOk(await b.request('GET', '/v1/chat/sessions', { token: bob.api_key })).sessions as any[];
    await expect.poll(async () => (await sessions()).some((s) => s.participant_addresses.includes('a.test/sally')), WAIT).toBe(true);
    const there = (await sessions()).find((s) => s.participant_addresses.includes('a.test/sally'));
    const history = async (t: TestNode, token: string, id: string) =>
      expectOk(await t.request('GET', `/v1/chat/sessions/${id}/messages`, { token })).messages as any[];
    const [got] = await history(b, bob.api_key, there.session_id);
    expect(got).toMatchObject({
      message_id: signed.message_id,
      from_did: key.didKey,
      signed_payload: signed.signed_payload,
      signature_status: 'verified',
      from_address: 'a.test/sally',
    });

    // A follow-up signed by the client, naming the recipient's key, in the existing session.
    const next: Envelope = { type: 'chat', from: 'a.test/sally', to: 'b.test/bob', to_did: bob.did_key, body: 'still there?', hang_on: true };
    const again = signedFields(key, next);
    expectOk(
      await a.request('POST', `/v1/chat/sessions/${started.session_id}/messages`, { token: sally.api_key, body: { body: next.body, hang_on: true, ...again } }),
    );
    await expect.poll(async () => (await history(b, bob.api_key, there.session_id)).map((m) => m.message_id), WAIT).toContain(again.message_id);
    expect((await history(b, bob.api_key, there.session_id)).find((m) => m.message_id === again.message_id)).toMatchObject({
      signature_status: 'verified',
      hang_on: true,
    });

    // Sally publishes no encryption key: bob's answer reaches her only as plaintext, named so.
    const answer = expectOk(
      await b.request('POST', `/v1/chat/sessions/${there.session_id}/messages`, {
        token: bob.api_key,
        body: { body: 'yes, here', content_mode: 'legacy_plaintext_v1' },
      }),
    );
    await expect.poll(async () => (await history(a, sally.api_key, started.session_id)).map((m) => m.message_id), WAIT).toContain(answer.message_id);
  });
});
