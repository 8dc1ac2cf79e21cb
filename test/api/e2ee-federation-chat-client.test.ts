/**
 * A chat envelope a self-custodial client seals itself for a participant on another node
 * (docs/adr/0009-end-to-end-chat.md, "With a participant on another node"), between two real
 * nodes, each peer table pointing at a recording proxy in front of the other node, so the test
 * sees every byte that crosses. The sender's node finds the participant's key on its node, checks
 * the envelope against it before anything is stored, keeps the envelope alone and sends it as the
 * client sealed it; the receiving node takes it on the envelope's signature, opens it for a
 * participant whose keys it holds and serves it as it is to one that holds its own. Refusals store
 * nothing; an envelope that cannot cross within its five minutes bounces.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../contract/errors.ts';
import { buildKeyAssertion, checkKeyAssertion, verifyKeyAssertion, type EncryptionKeyAssertion } from '../../server/crypto/e2ee/key-assertion.ts';
import { sealEnvelope } from '../../server/crypto/e2ee/seal-envelope.ts';
import { openNodeDatabase } from '../support/database.ts';
import { independentDecrypt, independentSignatureVerifies, type Obj } from '../support/e2ee-independent.ts';
import { testParty } from '../support/e2ee-parties.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { startLookupOnlyGate } from '../support/lookup-only-gate.ts';
import { arrived, historyOf, sessionsOf } from '../support/chat-arrivals.ts';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy.ts';
import { createSelfCustodial, envelopeSigner, publishEncryptionKey, type PublishedKey, type SelfCustodial } from '../support/self-custodial.ts';

const FAST_OUTBOX = { retryBaseMs: 40, retryMaxMs: 200 };
const WAIT = { timeout: 15_000, interval: 25 };
const canary = (what: string): string => `${what}canary${randomBytes(8).toString('hex')}`;

let a: TestNode;
let b: TestNode;
let toA: RecordingProxy;
let toB: RecordingProxy;
/** On node A: holds its own keys and publishes an encryption key. */
let sally: SelfCustodial & PublishedKey;
/** On node B: the node holds its keys. */
let bob: any;
/** On node B: holds its own keys and publishes an encryption key. */
let nora: SelfCustodial & PublishedKey;
/** On node B, in c.test, which node A reaches through a gate that answers key lookups but takes no delivery. */
let carl: any;
const secrets: string[] = [];

beforeAll(async () => {
  a = await startTestNode({ outbox: FAST_OUTBOX });
  b = await startTestNode({ outbox: FAST_OUTBOX });
  toA = await startRecordingProxy(a.url);
  toB = await startRecordingProxy(b.url);
  await createNodeNamespace(a, 'a.test');
  await createNodeNamespace(b, 'b.test');
  await createNodeNamespace(b, 'c.test');
  const pa = await createProject(a, 'pa', 'a.test');
  const pb = await createProject(b, 'pb', 'b.test');
  const pc = await createProject(b, 'pc', 'c.test');
  const sallyClient = await createSelfCustodial(a, pa.api_key, 'sally');
  sally = { ...sallyClient, ...(await publishEncryptionKey(a, sallyClient)) };
  bob = await createIdentity(b, pb.api_key, persistent('bob'));
  const noraClient = await createSelfCustodial(b, pb.api_key, 'nora');
  nora = { ...noraClient, ...(await publishEncryptionKey(b, noraClient)) };
  carl = await createIdentity(b, pc.api_key, persistent('carl'));
  expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'b.test', url: toB.url }), 201);
  expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'a.test', url: toA.url }), 201);
  return async () => {
    await Promise.all([toA.close(), toB.close()]);
    await Promise.all([a.stop(), b.stop()]);
  };
});

beforeAll(async () => {
  // Node B as node A sees it for c.test: its lookups answered, its door shut (a node that went down after the key was found).
  const gate = await startLookupOnlyGate(b.url);
  expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'c.test', url: gate.url }), 201);
  return () => gate.close();
});

type Peer = { address: string; did: string; stableId: string; key: EncryptionKeyAssertion };

/** The participant as sally's client finds it, asking its own node A as upstream's clients ask their registry. */
async function foundByA(address: string): Promise<Peer> {
  const token = sally.identity.api_key;
  const held = expectOk(await a.request('GET', `/v1/namespaces/${address}`.replace(/\/([^/]+)$/, '/addresses/$1'), { token }));
  const key = expectOk(await a.request('GET', `/v1/did/${held.did_aw}/key`, { token }));
  return { address, did: held.current_did_key as string, stableId: held.did_aw as string, key: key.encryption_key as EncryptionKeyAssertion };
}

/** What sally's client seals for `to` in the chat `conversationId` (a new session's id, or the session's). */
function sallySeals(to: Peer, body: string, conversationId: string, options: { createdAt?: number; fromAddress?: string; trustAnyKey?: boolean } = {}): Obj {
  return sealEnvelope(
    {
      kind: 'chat',
      sender: { address: options.fromAddress ?? 'a.test/sally', did: sally.key.didKey, stableId: sally.key.didSvc, encryptionKey: sally.assertion },
      recipients: [{ address: to.address, did: to.did, stableId: to.stableId, encryptionKey: to.key }],
      body,
      messageId: randomUUID(),
      conversationId,
      createdAt: options.createdAt ?? Date.now(),
    },
    envelopeSigner(sally.key),
    // Keys checked now; a substituted key is signed by someone else, and a client sealing with it did not check that.
    (assertion, expect) => (options.trustAnyKey === true ? checkKeyAssertion : verifyKeyAssertion)(assertion, { ...expect, now: Date.now() }),
  ) as unknown as Obj;
}

const asEnvelope = (envelope: Obj) => ({ content_mode: 'encrypted_v2', message_version: 2, encrypted_envelope: envelope });
/** A new chat with `toAddress`, its first message the envelope (whose conversation_id the session takes). */
const start = (envelope: Obj, toAddress: string) =>
  a.request('POST', '/v1/chat/sessions', { token: sally.identity.api_key, body: { to_addresses: [toAddress], message: '', ...asEnvelope(envelope) } });
const sendInto = (sessionId: string, envelope: Obj) =>
  a.request('POST', `/v1/chat/sessions/${sessionId}/messages`, { token: sally.identity.api_key, body: { body: '', ...asEnvelope(envelope) } });

const outbound = async (id: string) =>
  (expectOk(await a.request('GET', '/v1/messages/outbound', { token: sally.identity.api_key })).messages as any[]).find((m) => m.message_id === id);
/** The delivery of message `id` as it crossed to node B. */
function crossedToB(id: string): Obj {
  const batch = toB.recorded.map((chunk) => chunk.toString('utf8')).find((text) => text.includes(id) && text.includes('"encrypted_envelope"'));
  return (JSON.parse(batch!) as { messages: Obj[] }).messages.find((m) => m.message_id === id)!;
}
const crossedSecrets = () => {
  const crossed = Buffer.concat([...toA.recorded, ...toB.recorded]).toString('utf8');
  return secrets.filter((secret) => crossed.includes(secret));
};
/** Node A's chat rows with these ids (the node holds its database open; a second reader sees what it committed). */
async function chatRowsOnA(ids: string[]): Promise<Record<string, unknown>[]> {
  const stored = await openNodeDatabase(a.dataDir);
  try {
    return stored.db.prepare('SELECT * FROM chat_messages WHERE message_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as Record<
      string,
      unknown
    >[];
  } finally {
    stored.close();
  }
}

describe("a self-custodial client's own chat envelope to another node", () => {
  let bobSession: string;

  it('reaches a participant whose keys its node holds, which reads the exact text; the chat goes on in the same session both ways', async () => {
    const first = canary('chat');
    const second = canary('chat');
    secrets.push(first, second);
    const conversation = randomUUID();
    const envelope = sallySeals(await foundByA('b.test/bob'), first, conversation);
    const started = expectOk(await start(envelope, 'b.test/bob'));
    // The new session takes the envelope's conversation, the message its id.
    expect(started).toMatchObject({ session_id: conversation, message_id: envelope.message_id });
    bobSession = conversation;

    const got = await arrived(b, bob.api_key, started.message_id);
    expect(got.message).toMatchObject({
      body: first,
      end_to_end: true,
      content_mode: 'server_readable_hosted',
      signature_status: 'verified',
      from_address: 'a.test/sally',
    });
    await expect.poll(async () => (await outbound(started.message_id))?.status, WAIT).toBe('delivered');

    // It crossed as the client sealed it, with no plaintext signature beside it.
    const message = crossedToB(started.message_id);
    expect(message).toMatchObject({ kind: 'chat', body: '', signature: '', signed_payload: '', from: 'a.test/sally', encrypted_envelope: envelope });
    expect(independentSignatureVerifies(message.encrypted_envelope as Obj)).toBe(true);

    // Sally reads her own message as the envelope, which her own copy opens; her node has nothing readable of it.
    const mine = (await historyOf(a, sally.identity.api_key, conversation)).find((m) => m.message_id === started.message_id);
    expect(mine).toMatchObject({ body: '', end_to_end: true, content_mode: 'encrypted_v2', encrypted_envelope: envelope });
    expect(independentDecrypt(mine.encrypted_envelope as Obj, sally.encryption.privateKey)).toMatchObject({ body: first });

    // The next message goes into the session, sealed with the session as its conversation, to bob's copy of it.
    const next = sallySeals(await foundByA('b.test/bob'), second, conversation);
    const sent = expectOk(await sendInto(conversation, next));
    expect(sent).toMatchObject({ message_id: next.message_id, session_id: conversation });
    expect(await arrived(b, bob.api_key, sent.message_id)).toMatchObject({ sessionId: got.sessionId, message: { body: second, end_to_end: true } });

    // Bob answers (his node seals for the key sally publishes); sally gets the envelope and opens it herself.
    const answer = canary('chat');
    secrets.push(answer);
    const replied = expectOk(await b.request('POST', `/v1/chat/sessions/${got.sessionId}/messages`, { token: bob.api_key, body: { body: answer } }));
    const back = await arrived(a, sally.identity.api_key, replied.message_id);
    expect(back.sessionId).toBe(conversation);
    expect(back.message).toMatchObject({ body: '', content_mode: 'encrypted_v2' });
    expect(independentDecrypt(back.message.encrypted_envelope as Obj, sally.encryption.privateKey)).toMatchObject({ body: answer });

    expect(crossedSecrets()).toEqual([]);
    const rows = await chatRowsOnA([started.message_id, sent.message_id]);
    expect(rows).toHaveLength(2);
    expect(rows.every((row) => row.content_mode === 'encrypted_v2' && row.body === '' && typeof row.encrypted_envelope === 'string')).toBe(true);
    expect(secrets.filter((secret) => JSON.stringify(rows).includes(secret))).toEqual([]);
  });

  it('reaches a participant that holds its own keys, which gets the envelope and opens it with its key', async () => {
    const words = canary('chat');
    secrets.push(words);
    const to = await foundByA('b.test/nora');
    expect(to).toMatchObject({ did: nora.key.didKey, stableId: nora.key.didSvc });
    const envelope = sallySeals(to, words, randomUUID());
    const started = expectOk(await start(envelope, 'b.test/nora'));
    const got = await arrived(b, nora.identity.api_key, started.message_id);
    expect(got.message).toMatchObject({ body: '', end_to_end: true, content_mode: 'encrypted_v2', from_address: 'a.test/sally', encrypted_envelope: envelope });
    expect(independentDecrypt(got.message.encrypted_envelope as Obj, nora.encryption.privateKey)).toMatchObject({ body: words });
    expect(crossedSecrets()).toEqual([]);
  });

  it("is taken at the other node's door on its envelope's signature alone, when the delivered fields are what the envelope signed", async () => {
    const words = canary('chat');
    secrets.push(words);
    const envelope = sallySeals(await foundByA('b.test/bob'), words, randomUUID());
    // As node A sends it: the wire's fields what the envelope signed, no plaintext signature beside it.
    const wire = {
      v: 1,
      kind: 'chat',
      message_id: envelope.message_id,
      from: 'a.test/sally',
      from_did: sally.key.didKey,
      from_stable_id: sally.key.didSvc,
      to: 'b.test/bob',
      body: '',
      reply_to: null,
      wait_seconds: null,
      hang_on: false,
      sender_leaving: false,
      timestamp: envelope.created_at,
      signature: '',
      signed_payload: '',
      content_mode: 'encrypted_v2',
      message_version: 2,
      encrypted_envelope: envelope,
    };
    const deliver = async (message: unknown) => {
      const response = await fetch(`${b.url}/v1/federation/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
      });
      return { status: response.status, body: (await response.json()) as { code?: string } };
    };
    const forgeries = [
      { ...wire, from_did: testParty().did },
      { ...wire, to: 'b.test/nora' },
      { ...wire, timestamp: new Date(Date.now() + 1000).toISOString() },
      { ...wire, encrypted_envelope: { ...envelope, conversation_id: randomUUID() } },
    ];
    for (const forged of forgeries) expect(await deliver(forged)).toMatchObject({ status: 403, body: { code: 'SVC_ERR_FEDERATION_SIGNATURE_INVALID' } });
    expect(await deliver(wire)).toMatchObject({ status: 200, body: { status: 'delivered' } });
    expect((await arrived(b, bob.api_key, wire.message_id as string)).message).toMatchObject({ body: words, end_to_end: true, signature_status: 'verified' });
    expect(await deliver(wire)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
  });

  it('refuses before storing anything an envelope sealed to a substituted key, a stale one, one for another participant, and one from another address', async () => {
    const sessionsBefore = (await sessionsOf(a, sally.identity.api_key)).length;
    const queuedBefore = (expectOk(await a.request('GET', '/v1/messages/outbound', { token: sally.identity.api_key })).messages as any[]).length;
    const bobNow = await foundByA('b.test/bob');
    const substitute = testParty();
    const substituted = buildKeyAssertion(
      { identityDid: bob.did_key, identityStableId: bob.did_aw, custody: 'self', publicKey: substitute.keys.publicKey, now: Date.now() - 60_000 },
      substitute.sign,
    );
    const refused: Obj[] = [];
    const refuse = async (envelope: Obj, answer: Promise<Awaited<ReturnType<typeof start>>>, code: ErrorCode, detail: RegExp) => {
      refused.push(envelope);
      expectRefusal(await answer, 422, detail, code);
    };
    // Create-or-send: into the chat with bob (open already, so its session is the conversation), and a new chat with carl.
    let envelope = sallySeals({ ...bobNow, key: substituted }, 's', bobSession, { trustAnyKey: true });
    await refuse(envelope, start(envelope, 'b.test/bob'), 'SVC_ERR_E2EE_ENVELOPE_MISMATCH', /recipient_key_mismatch/);
    envelope = sallySeals(bobNow, 's', bobSession, { fromAddress: 'a.test/someone' });
    await refuse(envelope, start(envelope, 'b.test/bob'), 'SVC_ERR_E2EE_ENVELOPE_MISMATCH', /from\.address is not the sender's address/);
    envelope = sallySeals(await foundByA('c.test/carl'), 's', randomUUID(), { createdAt: Date.now() - 10 * 60_000 });
    await refuse(envelope, start(envelope, 'c.test/carl'), 'SVC_ERR_E2EE_ENVELOPE_STALE', /stale_envelope/);
    envelope = sallySeals(bobNow, 's', randomUUID());
    await refuse(envelope, start(envelope, 'c.test/carl'), 'SVC_ERR_E2EE_ENVELOPE_MISMATCH', /binding_mismatch/);
    // Into the session with bob: stale, and sealed for someone else.
    envelope = sallySeals(bobNow, 's', bobSession, { createdAt: Date.now() - 10 * 60_000 });
    await refuse(envelope, sendInto(bobSession, envelope), 'SVC_ERR_E2EE_ENVELOPE_STALE', /stale_envelope/);
    envelope = sallySeals(await foundByA('b.test/nora'), 's', bobSession);
    await refuse(envelope, sendInto(bobSession, envelope), 'SVC_ERR_E2EE_ENVELOPE_MISMATCH', /binding_mismatch/);

    expect((await sessionsOf(a, sally.identity.api_key)).length).toBe(sessionsBefore);
    expect((expectOk(await a.request('GET', '/v1/messages/outbound', { token: sally.identity.api_key })).messages as any[]).length).toBe(queuedBefore);
    expect(await chatRowsOnA(refused.map((e) => e.message_id as string))).toEqual([]);
  });

  it("bounces an envelope its receiver would refuse as stale: the participant's node was down past its five minutes", async () => {
    const carlAt = await foundByA('c.test/carl');
    // Sealed 4 min 57 s ago: fresh as it is posted, stale before carl's node takes deliveries again.
    const envelope = sallySeals(carlAt, 'too late', randomUUID(), { createdAt: Date.now() - 5 * 60_000 + 3_000 });
    const started = expectOk(await start(envelope, 'c.test/carl'));
    await expect.poll(async () => (await outbound(started.message_id))?.status, WAIT).toBe('bounced');
    expect(await outbound(started.message_id)).toMatchObject({
      kind: 'chat',
      subject: 'Chat: (end-to-end encrypted)',
      last_error: expect.stringMatching(/sealed by your client more than 5 minutes ago; send it again/),
    });
    const inbox = expectOk(await a.request('GET', '/v1/messages/inbox?limit=100', { token: sally.identity.api_key })).messages as any[];
    const bounce = inbox.find((m) => m.origin === 'bounce' && String(m.body).includes(started.message_id));
    expect(bounce).toMatchObject({ subject: 'Undeliverable: Chat: (end-to-end encrypted)' });
    expect(bounce.body).toMatch(/Your chat message to c\.test\/carl could not be delivered\.[\s\S]*sealed by your client more than 5 minutes ago/);
    expect(await sessionsOf(b, carl.api_key)).toEqual([]);
  });
});
