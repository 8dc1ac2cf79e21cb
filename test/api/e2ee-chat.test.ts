/**
 * End-to-end encrypted chat on one node (docs/adr/0009-end-to-end-chat.md), over real HTTP and a
 * real encrypted database: a chat message from an identity whose keys the node holds is one
 * envelope for every other participant of the session and the sender's own copy; the node opens
 * it for the participants whose keys it holds, each with its own wrap, and serves the envelope to
 * one that holds its own, which a decrypter written with node:crypto alone opens
 * (test/support/e2ee-independent.ts). A client that holds its own keys posts envelopes it made,
 * which the node checks before storing anything. No downgrade to plaintext unless a send names it,
 * and never when every participant can encrypt.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyKeyAssertion, type EncryptionKeyAssertion } from '../../server/crypto/e2ee/key-assertion.ts';
import { sealEnvelope, type SealParty } from '../../server/crypto/e2ee/seal-envelope.ts';
import { openNodeDatabase } from '../support/database.ts';
import { independentDecrypt, type Obj } from '../support/e2ee-independent.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { createSelfCustodial, envelopeSigner, publishEncryptionKey, type PublishedKey, type SelfCustodial } from '../support/self-custodial.ts';

const DOMAIN = 'e2ee-chat.test';
let t: TestNode;
let stored: Awaited<ReturnType<typeof openNodeDatabase>>;
let project: Project;
/** Custodial: the node holds their keys. */
let ann: any;
let bob: any;
let carl: any;
/** Self-custodial, each with a published encryption key. */
let sally: SelfCustodial & PublishedKey;
let sue: SelfCustodial & PublishedKey;
/** Self-custodial, without one; sid also takes no plaintext. */
let sam: SelfCustodial;
let sid: SelfCustodial;

async function selfCustodial(name: string): Promise<SelfCustodial & PublishedKey> {
  const client = await createSelfCustodial(t, project.api_key, name);
  return { ...client, ...(await publishEncryptionKey(t, client)) };
}

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  project = await createProject(t, 'e2ee-chat', DOMAIN);
  ann = await createIdentity(t, project.api_key, persistent('ann'));
  bob = await createIdentity(t, project.api_key, persistent('bob'));
  carl = await createIdentity(t, project.api_key, persistent('carl'));
  sally = await selfCustodial('sally');
  sue = await selfCustodial('sue');
  sam = await createSelfCustodial(t, project.api_key, 'sam');
  sid = await createSelfCustodial(t, project.api_key, 'sid');
  expectOk(await t.request('PATCH', '/v1/agents/me', { token: sid.identity.api_key, body: { accepts_plaintext: false } }));
  stored = await openNodeDatabase(t.dataDir);
});
afterAll(async () => {
  stored.close();
  await t.stop();
});

const at = (name: string) => `${DOMAIN}/${name}`;
const start = (token: string, body: Record<string, unknown>) => t.request('POST', '/v1/chat/sessions', { token, body });
const post = (token: string, sessionId: string, body: Record<string, unknown>) => t.request('POST', `/v1/chat/sessions/${sessionId}/messages`, { token, body });
const history = async (token: string, sessionId: string) => expectOk(await t.request('GET', `/v1/chat/sessions/${sessionId}/messages`, { token })).messages;
const messageOf = async (token: string, sessionId: string, messageId: string) =>
  (await history(token, sessionId)).find((m: { message_id: string }) => m.message_id === messageId);
const pendingOf = async (token: string, sessionId: string) =>
  expectOk(await t.request('GET', '/v1/chat/pending', { token })).pending.find((p: { session_id: string }) => p.session_id === sessionId);
const listed = async (token: string, sessionId: string) =>
  expectOk(await t.request('GET', '/v1/chat/sessions', { token })).sessions.find((s: { session_id: string }) => s.session_id === sessionId);
const row = (messageId: string) =>
  stored.db.prepare('SELECT * FROM chat_messages WHERE message_id = ?').get(messageId) as
    { body: string; content_mode: string; encrypted_envelope: string | null; signed_payload: string } | undefined;
const envelopeOf = (messageId: string) => JSON.parse(row(messageId)!.encrypted_envelope!) as Obj;
const openedFor = (messageId: string) => stored.db.prepare('SELECT agent_id FROM chat_plaintext WHERE message_id = ? ORDER BY agent_id').pluck().all(messageId);
const chatCount = () => stored.db.prepare('SELECT count(*) FROM chat_messages').pluck().get() as number;
const ids = (...who: any[]) => who.map((w) => w.agent_id ?? w.identity.agent_id).sort();
const searchChat = async (token: string, q: string) =>
  expectOk(await t.request('GET', `/v1/search?q=${encodeURIComponent(q)}&type=chat`, { token })).results as { message_id: string; snippet: string }[];

/** A key as a sender's client finds it: served with the identity's did:key. */
async function publishedKey(didAw: string): Promise<EncryptionKeyAssertion> {
  return expectOk(await t.request('GET', `/v1/did/${didAw}/key`)).encryption_key as EncryptionKeyAssertion;
}

/** A recipient as sally's client seals to it: a custodial identity (its key as published) or a self-custodial one. */
async function partyOf(who: any): Promise<SealParty> {
  if (who.identity !== undefined) return { address: at(who.identity.alias), did: who.key.didKey, stableId: who.key.didSvc, encryptionKey: who.assertion };
  return { address: at(who.alias), did: who.did_key, stableId: who.did_aw, encryptionKey: await publishedKey(who.did_aw) };
}

/** A chat envelope sally's client makes for `to` in conversation `conversationId`, as upstream's clients make one. */
async function sallyEnvelope(
  to: SealParty[],
  body: string,
  conversationId: string,
  options: { createdAt?: number; messageId?: string; substituted?: boolean } = {},
): Promise<Obj> {
  const sender: SealParty = { address: at('sally'), did: sally.key.didKey, stableId: sally.key.didSvc, encryptionKey: sally.assertion };
  return sealEnvelope(
    { kind: 'chat', sender, recipients: to, body, messageId: options.messageId ?? randomUUID(), conversationId, createdAt: options.createdAt ?? Date.now() },
    envelopeSigner(sally.key),
    // A client fooled into using a key someone substituted checks it against whoever signed it.
    options.substituted === true
      ? (assertion, expect) => verifyKeyAssertion(assertion, { ...expect, currentDidKey: assertion.identity_did, stableId: assertion.identity_stable_id })
      : undefined,
  ) as unknown as Obj;
}

const enveloped = (envelope: Obj, extra: Record<string, unknown> = {}) => ({
  content_mode: 'encrypted_v2',
  message_version: 2,
  encrypted_envelope: envelope,
  ...extra,
});

describe('between identities whose keys the node holds', () => {
  it('seals a two-party message: each reads the text, the row holds only the envelope, and what the node opened is kept per identity', async () => {
    const text = 'The launch moves to Thursday.';
    const sent = expectOk(await start(ann.api_key, { to_addresses: [at('bob')], message: text }));
    const read = await messageOf(bob.api_key, sent.session_id, sent.message_id);
    expect(read).toMatchObject({ body: text, end_to_end: true, content_mode: 'server_readable_hosted', message_version: 2, signature_status: 'verified' });
    expect(read.encrypted_envelope).toBeUndefined();
    // The sender's own copy, signed as a plaintext message for clients that verify the legacy signature.
    expect(await messageOf(ann.api_key, sent.session_id, sent.message_id)).toMatchObject({ body: text, content_mode: 'server_readable_hosted' });
    expect(JSON.parse(read.signed_payload as string)).toMatchObject({ body: text, type: 'chat' });

    const stored = row(sent.message_id)!;
    expect(stored).toMatchObject({ body: '', content_mode: 'encrypted_v2', signed_payload: '' });
    expect(JSON.stringify(stored)).not.toContain('launch');
    const envelope = envelopeOf(sent.message_id);
    expect(envelope).toMatchObject({ kind: 'chat', message_id: sent.message_id, conversation_id: sent.session_id });
    expect((envelope.recipients as Obj[]).map((r) => r.did)).toEqual([bob.did_key]);
    expect((envelope.key_wraps as Obj[]).map((w) => w.wrap_purpose).sort()).toEqual(['delivery', 'sender_copy']);
    expect(openedFor(sent.message_id)).toEqual(ids(ann, bob));

    // The list, pending and the reply read as their reader reads them.
    expect((await listed(bob.api_key, sent.session_id)).last_message).toMatchObject({ preview: text, end_to_end: true });
    expect(await pendingOf(bob.api_key, sent.session_id)).toMatchObject({
      last_message: text,
      last_message_content_mode: 'server_readable_hosted',
      last_message_version: 2,
    });
    const reply = expectOk(await post(bob.api_key, sent.session_id, { body: 'Thursday works.' }));
    expect(await messageOf(ann.api_key, sent.session_id, reply.message_id)).toMatchObject({ body: 'Thursday works.', end_to_end: true });
    expect(row(reply.message_id)!.body).toBe('');
  });

  it('seals a group message once, with a wrap per other participant, and each participant reads it', async () => {
    const sent = expectOk(await start(ann.api_key, { to_aliases: ['bob', 'carl'], message: 'Group secret: the budget doubled.' }));
    const envelope = envelopeOf(sent.message_id);
    expect((envelope.recipients as Obj[]).map((r) => r.did).sort()).toEqual([bob.did_key, carl.did_key].sort());
    expect(envelope.key_wraps as Obj[]).toHaveLength(3);
    for (const who of [ann, bob, carl]) {
      expect(await messageOf(who.api_key, sent.session_id, sent.message_id)).toMatchObject({ body: 'Group secret: the budget doubled.', end_to_end: true });
    }
    expect(openedFor(sent.message_id)).toEqual(ids(ann, bob, carl));
    const next = expectOk(await post(carl.api_key, sent.session_id, { body: 'Carl answers the group.' }));
    expect((envelopeOf(next.message_id).recipients as Obj[]).map((r) => r.did).sort()).toEqual([ann.did_key, bob.did_key].sort());
    expect(await messageOf(bob.api_key, sent.session_id, next.message_id)).toMatchObject({ body: 'Carl answers the group.' });
  });
});

describe('a group with a participant that holds its own keys', () => {
  it('serves that participant the envelope, which its own key opens; the node opens it only for the others', async () => {
    const text = 'Sally should see this only through her own key.';
    const sent = expectOk(await start(ann.api_key, { to_addresses: [at('bob'), at('sally')], message: text }));
    const mine = await messageOf(sally.identity.api_key, sent.session_id, sent.message_id);
    expect(mine).toMatchObject({
      body: '',
      end_to_end: true,
      content_mode: 'encrypted_v2',
      message_version: 2,
      signature: expect.any(String),
      signature_status: 'verified',
    });
    expect(independentDecrypt(mine.encrypted_envelope as Obj, sally.encryption.privateKey)).toMatchObject({
      kind: 'chat',
      body: text,
      conversation_id: sent.session_id,
    });
    expect(openedFor(sent.message_id)).toEqual(ids(ann, bob));
    expect(await pendingOf(sally.identity.api_key, sent.session_id)).toMatchObject({
      last_message: '',
      last_message_content_mode: 'encrypted_v2',
      last_message_version: 2,
      last_encrypted_envelope: mine.encrypted_envelope,
    });
    expect((await listed(sally.identity.api_key, sent.session_id)).last_message).toMatchObject({ preview: '', end_to_end: true });
    expect(await messageOf(bob.api_key, sent.session_id, sent.message_id)).toMatchObject({ body: text });
  });
});

describe('a self-custodial sender posting its own envelope', () => {
  it('starts a group under the envelope’s conversation; the node opens it for the custodial recipient only', async () => {
    const conversation = randomUUID();
    const envelope = await sallyEnvelope([await partyOf(bob), await partyOf(sue)], 'Sealed by Sally herself.', conversation);
    const sent = expectOk(await start(sally.identity.api_key, { to_addresses: [at('bob'), at('sue')], message: '', ...enveloped(envelope) }));
    expect(sent).toMatchObject({ session_id: conversation, message_id: envelope.message_id });
    expect(await messageOf(bob.api_key, conversation, sent.message_id)).toMatchObject({
      body: 'Sealed by Sally herself.',
      content_mode: 'server_readable_hosted',
      from_did: sally.key.didKey,
      signature: '',
      signature_status: 'verified',
    });
    const sues = await messageOf(sue.identity.api_key, conversation, sent.message_id);
    expect(sues).toMatchObject({ body: '', content_mode: 'encrypted_v2' });
    expect(sues.encrypted_envelope).toEqual(envelope);
    expect(independentDecrypt(sues.encrypted_envelope as Obj, sue.encryption.privateKey)).toMatchObject({ body: 'Sealed by Sally herself.' });
    // Sally's own copy is the envelope she made, which her sender copy opens.
    expect(
      independentDecrypt((await messageOf(sally.identity.api_key, conversation, sent.message_id)).encrypted_envelope as Obj, sally.encryption.privateKey),
    ).toMatchObject({
      body: 'Sealed by Sally herself.',
    });
    expect(openedFor(sent.message_id)).toEqual(ids(bob));

    // Then into the session it made.
    const next = await sallyEnvelope([await partyOf(bob), await partyOf(sue)], 'And a second one.', conversation);
    const again = expectOk(await post(sally.identity.api_key, conversation, { body: '', ...enveloped(next) }));
    expect(await messageOf(bob.api_key, conversation, again.message_id)).toMatchObject({ body: 'And a second one.', end_to_end: true });
  });

  it('takes the requests upstream’s clients post (session_id, from_did and timestamp beside the envelope)', async () => {
    const conversation = randomUUID();
    const to = [await partyOf(bob), await partyOf(sue)];
    const first = await sallyEnvelope(to, 'Started as upstream starts it.', conversation);
    const upstream = (envelope: Obj) => ({ from_did: sally.key.didKey, timestamp: envelope.created_at, message_id: envelope.message_id });
    const started = expectOk(
      await start(sally.identity.api_key, {
        session_id: conversation,
        to_addresses: [at('bob'), at('sue')],
        message: '',
        ...enveloped(first, upstream(first)),
      }),
    );
    expect(started).toMatchObject({ session_id: conversation, message_id: first.message_id });
    const next = await sallyEnvelope(to, 'Sent as upstream sends it.', conversation);
    expectOk(await post(sally.identity.api_key, conversation, { body: '', ...enveloped(next, upstream(next)) }));
    expect(await messageOf(bob.api_key, conversation, next.message_id as string)).toMatchObject({ body: 'Sent as upstream sends it.', end_to_end: true });
    // The session it names is the envelope's conversation, and a session id already taken is refused.
    const other = await sallyEnvelope(to, 'x', randomUUID());
    expectRefusal(
      await start(sally.identity.api_key, { session_id: randomUUID(), to_addresses: [at('bob'), at('sue')], message: '', ...enveloped(other) }),
      422,
      /session_id/,
      'SVC_ERR_VALIDATION',
    );
    const taken = await sallyEnvelope(to, 'y', conversation);
    expectRefusal(
      await start(sally.identity.api_key, { session_id: conversation, to_addresses: [at('bob'), at('sue')], message: '', ...enveloped(taken) }),
      422,
      /session_id/,
      'SVC_ERR_VALIDATION',
    );
    // Beside an envelope, from_did names the sender's own key.
    const forged = await sallyEnvelope(to, 'z', conversation);
    expectRefusal(
      await post(sally.identity.api_key, conversation, { body: '', ...enveloped(forged, { from_did: bob.did_key }) }),
      422,
      /from_did must match/,
      'SVC_ERR_SIGNER_MISMATCH',
    );
  });

  it('answers an identical retry as the first time, and refuses another envelope under the same id', async () => {
    const conversation = randomUUID();
    const messageId = randomUUID();
    const envelope = await sallyEnvelope([await partyOf(bob)], 'once', conversation, { messageId });
    const body = { to_addresses: [at('bob')], message: '', ...enveloped(envelope, { message_id: messageId }) };
    const first = expectOk(await start(sally.identity.api_key, body));
    expect(expectOk(await start(sally.identity.api_key, body))).toEqual(first);
    const other = await sallyEnvelope([await partyOf(bob)], 'twice', first.session_id, { messageId });
    expectRefusal(await start(sally.identity.api_key, { ...body, encrypted_envelope: other }), 409, /message_id/, 'SVC_ERR_MESSAGE_ID_REUSED');
    expect((await messageOf(bob.api_key, first.session_id, messageId)).body).toBe('once');
  });

  it('refuses what fails the contract, each with its code and a 4xx, and stores nothing', async () => {
    const conversation = randomUUID();
    const opened = expectOk(
      await start(sally.identity.api_key, {
        to_addresses: [at('bob'), at('sue')],
        message: '',
        ...enveloped(await sallyEnvelope([await partyOf(bob), await partyOf(sue)], 'opening', conversation)),
      }),
    );
    const both = [await partyOf(bob), await partyOf(sue)];
    const before = chatCount();
    const refused = async (envelope: unknown, code: Parameters<typeof expectRefusal>[3], detail: RegExp) =>
      expectRefusal(await post(sally.identity.api_key, opened.session_id, { body: '', ...enveloped(envelope as Obj) }), 422, detail, code);
    const good = await sallyEnvelope(both, 'b', conversation);
    // A key bob never published put in place of his (here sue's): the node refuses to route it.
    await refused(
      await sallyEnvelope([{ ...both[0]!, encryptionKey: sue.assertion }, both[1]!], 'b', conversation, { substituted: true }),
      'SVC_ERR_E2EE_ENVELOPE_MISMATCH',
      /recipient_key_mismatch/,
    );
    // Stale: dated ten minutes ahead, outside the five-minute window.
    await refused(await sallyEnvelope(both, 'b', conversation, { createdAt: Date.now() + 10 * 60_000 }), 'SVC_ERR_E2EE_ENVELOPE_STALE', /stale_envelope/);
    // Sealed for bob alone, posted into a session with bob and sue; or for another conversation.
    await refused(await sallyEnvelope([both[0]!], 'b', conversation), 'SVC_ERR_E2EE_ENVELOPE_MISMATCH', /binding_mismatch/);
    await refused(await sallyEnvelope(both, 'b', randomUUID()), 'SVC_ERR_E2EE_ENVELOPE_MISMATCH', /binding_mismatch/);
    // Malformed wraps, a changed ciphertext, a body that is no envelope at all.
    await refused({ ...good, key_wraps: [{}] }, 'SVC_ERR_E2EE_ENVELOPE_MALFORMED', /malformed_envelope/);
    const ciphertext = good.ciphertext as string;
    await refused({ ...good, ciphertext: `${ciphertext[0] === 'A' ? 'B' : 'A'}${ciphertext.slice(1)}` }, 'SVC_ERR_E2EE_SIGNATURE_INVALID', /invalid_signature/);
    await refused({}, 'SVC_ERR_E2EE_ENVELOPE_UNSUPPORTED', /unsupported_version/);
    // A mail envelope is not a chat message.
    const mail = sealEnvelope(
      {
        kind: 'mail',
        sender: { address: at('sally'), did: sally.key.didKey, stableId: sally.key.didSvc, encryptionKey: sally.assertion },
        recipients: [both[0]!],
        subject: 's',
        body: 'b',
        messageId: randomUUID(),
        conversationId: conversation,
        createdAt: Date.now(),
      },
      envelopeSigner(sally.key),
    ) as unknown as Obj;
    await refused(mail, 'SVC_ERR_E2EE_ENVELOPE_MISMATCH', /binding_mismatch/);
    expect(chatCount()).toBe(before);
  });
});

describe('no downgrade', () => {
  it('never sends plaintext when every participant can encrypt, not even when asked', async () => {
    const before = chatCount();
    expectRefusal(
      await start(ann.api_key, { to_addresses: [at('bob'), at('sally')], message: 'in the clear', content_mode: 'legacy_plaintext_v1' }),
      409,
      /never as plaintext/,
      'SVC_ERR_E2EE_REQUIRED',
    );
    expect(chatCount()).toBe(before);
  });

  it('sends nothing to a participant without a key, naming it, unless the send names plaintext; then it is marked as such', async () => {
    const before = chatCount();
    const refusal = await start(ann.api_key, { to_addresses: [at('bob'), at('sam')], message: 'hello' });
    expectRefusal(refusal, 409, /sam publishes no valid encryption key.*legacy_plaintext_v1/, 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING');
    expect(JSON.stringify(refusal.body)).not.toMatch(/bob publishes/);
    expect(chatCount()).toBe(before);
    const sent = expectOk(await start(ann.api_key, { to_addresses: [at('bob'), at('sam')], message: 'hello', content_mode: 'legacy_plaintext_v1' }));
    expect(await messageOf(sam.identity.api_key, sent.session_id, sent.message_id)).toMatchObject({
      body: 'hello',
      end_to_end: false,
      content_mode: 'legacy_plaintext_v1',
      message_version: 1,
    });
    expect(row(sent.message_id)).toMatchObject({ body: 'hello', content_mode: 'legacy_plaintext_v1' });
  });

  it('refuses plaintext to a participant that accepts none', async () => {
    const before = chatCount();
    expectRefusal(
      await start(ann.api_key, { to_addresses: [at('sid')], message: 'hello', content_mode: 'legacy_plaintext_v1' }),
      409,
      /accepts only end-to-end encrypted/,
      'SVC_ERR_E2EE_PLAINTEXT_REFUSED',
    );
    expect(chatCount()).toBe(before);
  });
});

describe('search', () => {
  it('finds an encrypted message by its text only for the identities the node opened it for', async () => {
    const word = `zebrafish${randomUUID().slice(0, 8)}`;
    const sent = expectOk(await start(ann.api_key, { to_addresses: [at('bob'), at('sally')], message: `the ${word} report` }));
    const found = await searchChat(bob.api_key, word);
    expect(found.map((hit) => hit.message_id)).toEqual([sent.message_id]);
    expect(found[0]!.snippet).toContain(word);
    expect((await searchChat(ann.api_key, word)).map((hit) => hit.message_id)).toEqual([sent.message_id]);
    // Sally is in the session but the node never opened it for her; carl is not in it.
    expect(await searchChat(sally.identity.api_key, word)).toEqual([]);
    expect(await searchChat(carl.api_key, word)).toEqual([]);
  });

  it('finds a message the node opened for no one by its people alone, for the session’s participants', async () => {
    const word = `okapi${randomUUID().slice(0, 8)}`;
    const conversation = randomUUID();
    const envelope = await sallyEnvelope([await partyOf(sue)], `the ${word} plan`, conversation);
    const sent = expectOk(await start(sally.identity.api_key, { to_addresses: [at('sue')], message: '', ...enveloped(envelope) }));
    expect(openedFor(sent.message_id)).toEqual([]);
    expect(await searchChat(sue.identity.api_key, word)).toEqual([]);
    expect((await searchChat(sue.identity.api_key, 'sally')).map((hit) => hit.message_id)).toContain(sent.message_id);
    expect(await searchChat(carl.api_key, 'sally')).toEqual([]);
  });
});
