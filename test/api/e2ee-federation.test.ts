/**
 * End-to-end encrypted mail between two real nodes (docs/adr/0008-end-to-end-mail.md), each peer
 * table pointing at a recording proxy in front of the other node, so the test sees every byte that
 * crosses: mail and replies both ways are sealed as they leave (the recipient's key found on its
 * node), checked and opened on arrival for the recipient whose keys the receiving node holds, and
 * no subject or body crosses in any request or answer. A recipient that publishes no key gets
 * nothing unless the send names plaintext; an envelope changed on the way, or another node's
 * forgery, is refused at the door. A self-custodial identity's own envelope crosses as its client
 * sealed it, checked on both sides, and bounces rather than go stale on the way.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKeyAssertion, checkKeyAssertion, verifyKeyAssertion, type EncryptionKeyAssertion } from '../../server/crypto/e2ee/key-assertion.ts';
import { sealEnvelope, type SealParty } from '../../server/crypto/e2ee/seal-envelope.ts';
import { generateX25519KeyPair } from '../../server/crypto/e2ee/x25519.ts';
import { independentDecrypt, independentSignatureVerifies, type Obj } from '../support/e2ee-independent.ts';
import { testParty } from '../support/e2ee-parties.ts';
import { signedMail, vouchingNode } from '../support/federation.ts';
import { testKey, type TestKey } from '../support/keys.ts';
import { remoteServers } from '../support/remote-server.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { startLookupOnlyGate } from '../support/lookup-only-gate.ts';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy.ts';
import { createSelfCustodial, envelopeSigner, publishEncryptionKey, type PublishedKey, type SelfCustodial } from '../support/self-custodial.ts';
import { expectRefusal } from '../support/expect.ts';

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
const secrets: string[] = [];

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

const send = async (from: TestNode, token: string, body: Record<string, unknown>) =>
  expectOk(await from.request('POST', '/v1/messages', { token, body })).message_id as string;
const inbox = async (t: TestNode, token: string) => expectOk(await t.request('GET', '/v1/messages/inbox?limit=100', { token })).messages as any[];
const outboundOf = async (t: TestNode, token: string, id: string) =>
  (expectOk(await t.request('GET', '/v1/messages/outbound', { token })).messages as any[]).find((m) => m.message_id === id);
const arrived = async (t: TestNode, token: string, id: string) => {
  await expect.poll(async () => (await inbox(t, token)).find((m) => m.message_id === id), WAIT).toBeDefined();
  return (await inbox(t, token)).find((m) => m.message_id === id);
};

describe('mail between two nodes, end to end', () => {
  it('crosses sealed both ways: read on arrival, replied to, and no subject or body in any byte between the nodes', async () => {
    const first = { subject: canary('subject'), body: canary('body') };
    const reply = { subject: canary('subject'), body: canary('body') };
    secrets.push(first.subject, first.body, reply.subject, reply.body);

    const sent = await send(a, alice.api_key, { to_address: 'b.test/bob', ...first });
    const got = await arrived(b, bob.api_key, sent);
    expect(got).toMatchObject({ ...first, end_to_end: true, content_mode: 'server_readable_hosted', origin: 'remote', signature_status: 'verified' });
    // The node checked the envelope's signature; bob's client, given no envelope, is given no signature to misread.
    expect(got).toMatchObject({ signature: '', signed_payload: '' });
    await expect.poll(async () => (await outboundOf(a, alice.api_key, sent))?.status, WAIT).toBe('delivered');
    // The sender reads its own copy in Sent, marked as sealed.
    expect(expectOk(await a.request('GET', `/v1/messages/sent/${sent}`, { token: alice.api_key }))).toMatchObject({ ...first, end_to_end: true });

    const answered = await send(b, bob.api_key, { to_address: 'a.test/alice', ...reply, thread_id: sent });
    expect(await arrived(a, alice.api_key, answered)).toMatchObject({ ...reply, end_to_end: true, thread_id: sent });

    // What crossed: deliveries each way, and the key and sender lookups that made them possible.
    expect(toB.requests).toContain('POST /v1/federation/messages/batch');
    expect(toA.requests).toContain('POST /v1/federation/messages/batch');
    expect(toB.requests.some((r) => r.startsWith('GET /v1/did/'))).toBe(true);
    const crossed = Buffer.concat([...toA.recorded, ...toB.recorded]).toString('utf8');
    expect(crossed).toContain('encrypted_envelope');
    expect(secrets.filter((secret) => crossed.includes(secret))).toEqual([]);
  });

  it('stores the envelope its sender signed: a decrypter that is not the node opens nothing without the key, and the signature verifies', async () => {
    const words = { subject: canary('subject'), body: canary('body') };
    const sent = await send(a, alice.api_key, { to_address: 'b.test/bob', ...words });
    await arrived(b, bob.api_key, sent);
    // The delivery as it crossed: the wire's own fields carry no words, the envelope is the sender's.
    const batch = toB.recorded.map((chunk) => chunk.toString('utf8')).find((text) => text.includes(sent) && text.includes('"encrypted_envelope"'));
    const message = (JSON.parse(batch!) as { messages: Obj[] }).messages.find((m) => m.message_id === sent)!;
    expect(message).toMatchObject({ subject: '', body: '', content_mode: 'encrypted_v2', message_version: 2 });
    const envelope = message.encrypted_envelope as Obj;
    expect(independentSignatureVerifies(envelope)).toBe(true);
    expect(envelope.recipients).toEqual([expect.objectContaining({ address: 'b.test/bob', did: bob.did_key })]);
    expect(() => independentDecrypt(envelope, randomBytes(32))).toThrow('not a recipient');
  });

  it('refuses at the door an envelope changed on the way, and one under another sender than its signature', async () => {
    const sent = await send(a, alice.api_key, { to_address: 'b.test/bob', subject: 'original', body: 'as sealed' });
    await arrived(b, bob.api_key, sent);
    const batch = toB.recorded.map((chunk) => chunk.toString('utf8')).find((text) => text.includes(sent) && text.includes('"encrypted_envelope"'));
    const message = (JSON.parse(batch!) as { messages: Obj[] }).messages.find((m) => m.message_id === sent)!;
    const envelope = message.encrypted_envelope as Obj;
    const replay = async (changed: Obj) => {
      const response = await fetch(`${b.url}/v1/federation/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(changed),
      });
      return { status: response.status, body: (await response.json()) as { code?: string; detail?: unknown } };
    };
    // A fresh id, the envelope changed: its signature (or its binding to the id) no longer holds.
    const forged = await replay({ ...message, message_id: randomUUID() });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(forged.status).toBeLessThan(500);
    const tampered = await replay({ ...message, message_id: randomUUID(), encrypted_envelope: { ...envelope, conversation_id: 'another' } });
    expect(tampered.status).toBeGreaterThanOrEqual(400);
    expect(tampered.status).toBeLessThan(500);
    expect((await inbox(b, bob.api_key)).filter((m) => m.subject === 'original')).toHaveLength(1);
  });
});

describe("a node's door for sealed mail", () => {
  const servers = remoteServers();
  afterAll(() => servers.closeAll());
  let zed: TestKey;
  let zedKey: EncryptionKeyAssertion;

  beforeAll(async () => {
    // Another node's sender, x.test/zed, vouched for by a scripted node, with a key of its own.
    zed = testKey();
    const keys = generateX25519KeyPair();
    zedKey = buildKeyAssertion({ identityDid: zed.didKey, custody: 'self', publicKey: keys.publicKey, now: Date.now() - 60_000 }, (bytes) =>
      Buffer.from(zed.sign(bytes), 'base64'),
    );
    const node = await vouchingNode(servers, 'x.test', { zed });
    expectOk(await b.owner('POST', '/v1/node/peers', { domain: 'x.test', url: node.url }), 201);
  });

  /** A mail from zed to `to`, its wire fields signed by zed, its envelope sealed by zed for `recipient`. */
  async function sealedFromZed(recipient: SealParty, options: { createdAt?: number; to?: string; verify?: typeof checkKeyAssertion } = {}) {
    const wire = signedMail(zed, { from: 'x.test/zed', to: options.to ?? 'b.test/bob', subject: '', body: '' });
    const envelope = sealEnvelope(
      {
        kind: 'mail',
        sender: { address: 'x.test/zed', did: zed.didKey, encryptionKey: zedKey },
        recipients: [recipient],
        subject: 'from another node',
        body: 'sealed by its client',
        messageId: wire.message_id,
        conversationId: wire.message_id,
        createdAt: options.createdAt ?? Date.now(),
      },
      { did: zed.didKey, sign: (bytes) => Buffer.from(zed.sign(bytes), 'base64') },
      options.verify,
    ) as unknown as Obj;
    return { ...wire, content_mode: 'encrypted_v2', message_version: 2, encrypted_envelope: envelope };
  }
  /** As zed's client sends it: signed by the envelope alone, the wire's fields what the envelope says. */
  const signedByEnvelope = (sealed: Awaited<ReturnType<typeof sealedFromZed>>) => ({
    ...sealed,
    timestamp: sealed.encrypted_envelope.created_at as string,
    signature: '',
    signed_payload: '',
  });
  const bobAsRecipient = async (): Promise<SealParty> => ({
    address: 'b.test/bob',
    did: bob.did_key,
    stableId: bob.did_aw,
    encryptionKey: expectOk(await b.request('GET', `/v1/did/${bob.did_aw}/key`)).encryption_key,
  });
  const deliver = async (message: unknown) => {
    const response = await fetch(`${b.url}/v1/federation/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
    });
    return { status: response.status, body: (await response.json()) as { code?: string; detail?: string } };
  };

  it('takes a sealed mail whose envelope checks out, and opens it for the recipient whose keys the node holds', async () => {
    const message = await sealedFromZed(await bobAsRecipient());
    expect(await deliver(message)).toMatchObject({ status: 200, body: { status: 'delivered' } });
    expect(await arrived(b, bob.api_key, message.message_id)).toMatchObject({ subject: 'from another node', body: 'sealed by its client', end_to_end: true });
    // The same delivery again is the duplicate it is.
    expect(await deliver(message)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
  });

  it('refuses, each with its code, a stale envelope, one sealed for someone else, a suite downgrade and a broken envelope; nothing is stored', async () => {
    const refusals: [unknown, string][] = [
      [await sealedFromZed(await bobAsRecipient(), { createdAt: Date.now() + 10 * 60_000 }), 'SVC_ERR_E2EE_ENVELOPE_STALE'],
      [await sealedFromZed(testParty({ address: 'b.test/bob' })), 'SVC_ERR_E2EE_ENVELOPE_MISMATCH'],
    ];
    const good = await sealedFromZed(await bobAsRecipient());
    const envelope = good.encrypted_envelope;
    refusals.push([
      { ...good, encrypted_envelope: { ...envelope, crypto: { ...(envelope.crypto as Obj), suite: 'aweb-e2ee-v1.weak' } } },
      'SVC_ERR_E2EE_ENVELOPE_UNSUPPORTED',
    ]);
    refusals.push([{ ...good, encrypted_envelope: { ...envelope, key_wraps: [{}] } }, 'SVC_ERR_E2EE_ENVELOPE_MALFORMED']);
    for (const [message, code] of refusals) {
      const answer = await deliver(message);
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect(answer.body.code).toBe(code);
      expect(JSON.stringify(answer.body)).not.toContain('sealed by its client');
    }
    const ids = refusals.map(([message]) => (message as { message_id: string }).message_id);
    expect((await inbox(b, bob.api_key)).filter((m) => ids.includes(m.message_id))).toEqual([]);
  });

  it('takes a mail signed only by its envelope when the delivered fields are what the envelope signed; refuses the rest, a keyless recipient apart', async () => {
    const sealed = await sealedFromZed(await bobAsRecipient());
    const envelope = sealed.encrypted_envelope;
    // Changed on the way: a field beside the envelope, or the envelope itself.
    const forgeries = [
      { ...signedByEnvelope(sealed), from_did: testKey().didKey },
      { ...signedByEnvelope(sealed), to: 'b.test/ned' },
      { ...signedByEnvelope(sealed), timestamp: new Date(Date.now() + 1000).toISOString() },
      { ...signedByEnvelope(sealed), encrypted_envelope: { ...envelope, conversation_id: randomUUID() } },
    ];
    for (const forged of forgeries) expect(await deliver(forged)).toMatchObject({ status: 403, body: { code: 'SVC_ERR_FEDERATION_SIGNATURE_INVALID' } });
    expect(await deliver(signedByEnvelope(sealed))).toMatchObject({ status: 200, body: { status: 'delivered' } });
    expect(await arrived(b, bob.api_key, sealed.message_id)).toMatchObject({ body: 'sealed by its client', end_to_end: true, signature_status: 'verified' });
    // Ned publishes no key: whatever zed sealed for it is refused as missing, not as a wrong key.
    const stranger = testParty();
    const forNed = await sealedFromZed(
      {
        address: 'b.test/ned',
        did: ned.did_key,
        stableId: ned.did_aw,
        encryptionKey: { ...stranger.encryptionKey, identity_did: ned.did_key, identity_stable_id: ned.did_aw },
      },
      { to: 'b.test/ned', verify: checkKeyAssertion },
    );
    expect(await deliver(signedByEnvelope(forNed))).toMatchObject({ status: 409, body: { code: 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING' } });
  });
});

describe('no downgrade across nodes', () => {
  it('bounces mail for a recipient whose node publishes no key for it, unless the send names plaintext', async () => {
    const secret = canary('body');
    secrets.push(secret);
    const sealed = await send(a, alice.api_key, { to_address: 'b.test/ned', body: secret });
    await expect.poll(async () => (await outboundOf(a, alice.api_key, sealed))?.status, WAIT).toBe('bounced');
    expect((await outboundOf(a, alice.api_key, sealed)).last_error).toMatch(/not sent: it is end-to-end encrypted.*legacy_plaintext_v1/);
    const crossed = Buffer.concat(toB.recorded).toString('utf8');
    expect(crossed).not.toContain(secret);

    const plain = await send(a, alice.api_key, { to_address: 'b.test/ned', body: 'hello, in the clear', content_mode: 'legacy_plaintext_v1' });
    expect(await arrived(b, ned.api_key, plain)).toMatchObject({ body: 'hello, in the clear', end_to_end: false, content_mode: 'legacy_plaintext_v1' });
  });

  it('refuses plaintext from another node for a recipient that takes only encrypted mail: the sender gets it back', async () => {
    expectOk(await b.request('PATCH', '/v1/agents/me', { token: ned.api_key, body: { accepts_plaintext: false } }));
    const plain = await send(a, alice.api_key, { to_address: 'b.test/ned', body: 'not wanted in the clear', content_mode: 'legacy_plaintext_v1' });
    await expect.poll(async () => (await outboundOf(a, alice.api_key, plain))?.status, WAIT).toBe('bounced');
    expect((await outboundOf(a, alice.api_key, plain)).last_error).toMatch(/accepts only end-to-end encrypted messages/);
    expect((await inbox(b, ned.api_key)).some((m) => m.message_id === plain)).toBe(false);
  });
});

describe("a self-custodial client's own envelope to another node", () => {
  /** On node A and on node B: each holds its own keys and publishes an encryption key. */
  let sally: SelfCustodial & PublishedKey;
  let nora: SelfCustodial & PublishedKey;
  /** On node B, in c.test, which node A reaches through a gate that answers key lookups but takes no delivery. */
  let carl: any;

  beforeAll(async () => {
    const pa = await createProject(a, 'pa-clients', 'a.test');
    const pb = await createProject(b, 'pb-clients', 'b.test');
    const sallyClient = await createSelfCustodial(a, pa.api_key, 'sally');
    sally = { ...sallyClient, ...(await publishEncryptionKey(a, sallyClient)) };
    const noraClient = await createSelfCustodial(b, pb.api_key, 'nora');
    nora = { ...noraClient, ...(await publishEncryptionKey(b, noraClient)) };
    await createNodeNamespace(b, 'c.test');
    const pc = await createProject(b, 'pc', 'c.test');
    carl = await createIdentity(b, pc.api_key, persistent('carl'));
    // Node B as node A sees it for c.test: its lookups answered, its door shut (a node that went down after the key was found).
    const gate = await startLookupOnlyGate(b.url);
    expectOk(await a.owner('POST', '/v1/node/peers', { domain: 'c.test', url: gate.url }), 201);
    return () => gate.close();
  });

  /** The recipient's key assertion as its own node serves it. */
  const keyOn = async (t: TestNode, didAw: string): Promise<EncryptionKeyAssertion> =>
    expectOk(await t.request('GET', `/v1/did/${didAw}/key`)).encryption_key as EncryptionKeyAssertion;
  /** The recipient as sally's client finds it, asking its own node A as upstream's clients ask their registry. */
  const foundByA = async (address: string) => {
    const token = sally.identity.api_key;
    const held = expectOk(await a.request('GET', `/v1/namespaces/${address}`.replace(/\/([^/]+)$/, '/addresses/$1'), { token }));
    const key = expectOk(await a.request('GET', `/v1/did/${held.did_aw}/key`, { token }));
    expect(key).toMatchObject({ did_aw: held.did_aw, current_did_key: held.current_did_key });
    return { address, did: held.current_did_key as string, stableId: held.did_aw as string, key: key.encryption_key as EncryptionKeyAssertion };
  };

  /** What sally's client seals for `to` (did:key, did:svc, address, key), as upstream's clients seal. */
  function sallySeals(
    to: { address: string; did: string; stableId: string; key: EncryptionKeyAssertion },
    content: { subject: string; body: string },
    options: { createdAt?: number; trustAnyKey?: boolean } = {},
  ): Obj {
    const messageId = randomUUID();
    return sealEnvelope(
      {
        kind: 'mail',
        sender: { address: 'a.test/sally', did: sally.key.didKey, stableId: sally.key.didSvc, encryptionKey: sally.assertion },
        recipients: [{ address: to.address, did: to.did, stableId: to.stableId, encryptionKey: to.key }],
        ...content,
        messageId,
        conversationId: messageId,
        createdAt: options.createdAt ?? Date.now(),
      },
      envelopeSigner(sally.key),
      // Keys checked now (an envelope dated back is sealed with today's keys); a substituted key is
      // signed by someone else, and the client that seals with it did not check that.
      (assertion, expect) => (options.trustAnyKey === true ? checkKeyAssertion : verifyKeyAssertion)(assertion, { ...expect, now: Date.now() }),
    ) as unknown as Obj;
  }
  const post = (envelope: Obj, toAddress: string) =>
    a.request('POST', '/v1/messages', {
      token: sally.identity.api_key,
      body: { to_address: toAddress, content_mode: 'encrypted_v2', message_version: 2, encrypted_envelope: envelope, body: '' },
    });
  const bobAt = async () => ({ address: 'b.test/bob', did: bob.did_key, stableId: bob.did_aw, key: await keyOn(b, bob.did_aw) });

  it("finds another node's address and its key through its own node, for an identity that asks; anyone else hears what it hears of any unknown address", async () => {
    const found = await foundByA('b.test/bob');
    expect(found).toEqual({ address: 'b.test/bob', did: bob.did_key, stableId: bob.did_aw, key: await keyOn(b, bob.did_aw) });
    expect(toB.requests.map(decodeURIComponent)).toContain(`GET /v1/did/${bob.did_aw}/key`);
    // Anonymous: no question leaves for another node.
    expectRefusal(await a.request('GET', '/v1/namespaces/b.test/addresses/bob'), 404, undefined, 'SVC_ERR_NAMESPACE_NOT_FOUND');
    expectRefusal(await a.request('GET', `/v1/did/${bob.did_aw}/key`), 404, undefined, 'SVC_ERR_DID_NOT_FOUND');
    expectRefusal(await a.request('GET', '/v1/namespaces/b.test/addresses/bob', { token: 'svc_sk_not-a-key' }), 401);
    // Each refusal of the lookup its own code: no such address there, an address without a key, a domain no node answers for.
    const token = sally.identity.api_key;
    expectRefusal(
      await a.request('GET', '/v1/namespaces/b.test/addresses/nobody', { token }),
      404,
      /does not exist on its node/,
      'SVC_ERR_RECIPIENT_NOT_FOUND',
    );
    expectRefusal(await a.request('GET', '/v1/namespaces/b.test/addresses/ned', { token }), 409, /encryption key/, 'SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED');
    expectRefusal(await a.request('GET', '/v1/namespaces/nowhere.test/addresses/x', { token }), 404, /No node is known/, 'SVC_ERR_RECIPIENT_NODE_UNKNOWN');
    // This node's own addresses answer everyone as before.
    expect(expectOk(await a.request('GET', '/v1/namespaces/a.test/addresses/sally'))).toMatchObject({ did_aw: sally.key.didSvc });
  });

  it('reaches a recipient whose keys its node holds, which reads the exact text; nothing readable crosses', async () => {
    const words = { subject: canary('subject'), body: canary('body') };
    secrets.push(words.subject, words.body);
    const envelope = sallySeals(await foundByA('b.test/bob'), words);
    const sent = expectOk(await post(envelope, 'b.test/bob'));
    expect(sent).toMatchObject({ message_id: envelope.message_id, status: 'queued' });
    expect(await arrived(b, bob.api_key, sent.message_id)).toMatchObject({
      ...words,
      end_to_end: true,
      content_mode: 'server_readable_hosted',
      origin: 'remote',
      from_address: 'a.test/sally',
      from_did: sally.key.didKey,
      signature_status: 'verified',
    });
    await expect.poll(async () => (await outboundOf(a, sally.identity.api_key, sent.message_id))?.status, WAIT).toBe('delivered');
    // Sally's Sent is her envelope, which her own copy opens; the node kept nothing readable of it.
    const mine = expectOk(await a.request('GET', `/v1/messages/sent/${sent.message_id}`, { token: sally.identity.api_key }));
    expect(mine).toMatchObject({ end_to_end: true, content_mode: 'encrypted_v2', subject: '', body: '', status: 'delivered' });
    expect(mine.encrypted_envelope).toEqual(envelope);
    expect(independentDecrypt(mine.encrypted_envelope as Obj, sally.encryption.privateKey)).toMatchObject(words);
    // It crossed as the client sealed it, with no plaintext signature beside it.
    const batch = toB.recorded.map((chunk) => chunk.toString('utf8')).find((text) => text.includes(sent.message_id) && text.includes('"encrypted_envelope"'));
    const message = (JSON.parse(batch!) as { messages: Obj[] }).messages.find((m) => m.message_id === sent.message_id)!;
    expect(message).toMatchObject({ subject: '', body: '', signature: '', signed_payload: '', from: 'a.test/sally', encrypted_envelope: envelope });
    const crossed = Buffer.concat([...toA.recorded, ...toB.recorded]).toString('utf8');
    expect(secrets.filter((secret) => crossed.includes(secret))).toEqual([]);
  });

  it('reaches a recipient that holds its own keys, which gets the envelope and opens it with its key', async () => {
    const words = { subject: canary('subject'), body: canary('body') };
    secrets.push(words.subject, words.body);
    const to = await foundByA('b.test/nora');
    expect(to).toMatchObject({ did: nora.key.didKey, stableId: nora.key.didSvc });
    const envelope = sallySeals(to, words);
    const sent = expectOk(await post(envelope, 'b.test/nora'));
    const got = await arrived(b, nora.identity.api_key, sent.message_id);
    expect(got).toMatchObject({ end_to_end: true, content_mode: 'encrypted_v2', subject: '', body: '', from_address: 'a.test/sally' });
    expect(independentDecrypt(got.encrypted_envelope as Obj, nora.encryption.privateKey)).toMatchObject(words);
    const crossed = Buffer.concat([...toA.recorded, ...toB.recorded]).toString('utf8');
    expect(secrets.filter((secret) => crossed.includes(secret))).toEqual([]);
  });

  it('refuses before storing anything an envelope sealed to a substituted key, a stale one, and one for another recipient', async () => {
    const sent = async () => (expectOk(await a.request('GET', '/v1/messages/outbound', { token: sally.identity.api_key })).messages as any[]).length;
    const before = await sent();
    const bobNow = await bobAt();
    const substitute = testParty();
    const substituted = buildKeyAssertion(
      { identityDid: bob.did_key, identityStableId: bob.did_aw, custody: 'self', publicKey: substitute.keys.publicKey, now: Date.now() - 60_000 },
      substitute.sign,
    );
    expectRefusal(
      await post(sallySeals({ ...bobNow, key: substituted }, { subject: 's', body: 'b' }, { trustAnyKey: true }), 'b.test/bob'),
      422,
      /recipient_key_mismatch/,
      'SVC_ERR_E2EE_ENVELOPE_MISMATCH',
    );
    expectRefusal(
      await post(sallySeals(bobNow, { subject: 's', body: 'b' }, { createdAt: Date.now() - 10 * 60_000 }), 'b.test/bob'),
      422,
      /stale_envelope/,
      'SVC_ERR_E2EE_ENVELOPE_STALE',
    );
    expectRefusal(await post(sallySeals(bobNow, { subject: 's', body: 'b' }), 'b.test/nora'), 422, /binding_mismatch/, 'SVC_ERR_E2EE_ENVELOPE_MISMATCH');
    expect(await sent()).toBe(before);
  });

  it('bounces an envelope its receiver would refuse as stale: the node was down past its five minutes', async () => {
    const carlAt = { address: 'c.test/carl', did: carl.did_key, stableId: carl.did_aw, key: await keyOn(b, carl.did_aw) };
    // Sealed 4 min 57 s ago: fresh as it is posted, stale before carl's node takes deliveries again.
    const envelope = sallySeals(carlAt, { subject: 'late', body: 'too late' }, { createdAt: Date.now() - 5 * 60_000 + 3_000 });
    const sent = expectOk(await post(envelope, 'c.test/carl'));
    expect(sent.status).toBe('queued');
    await expect.poll(async () => (await outboundOf(a, sally.identity.api_key, sent.message_id))?.status, WAIT).toBe('bounced');
    expect((await outboundOf(a, sally.identity.api_key, sent.message_id)).last_error).toMatch(/sealed by your client more than 5 minutes ago; send it again/);
    const bounce = (await inbox(a, sally.identity.api_key)).find((m) => m.origin === 'bounce' && String(m.body).includes(sent.message_id));
    expect(bounce?.body).toMatch(/sealed by your client more than 5 minutes ago/);
    expect((await inbox(b, carl.api_key)).some((m) => m.message_id === sent.message_id)).toBe(false);
  });
});
