/**
 * End-to-end encrypted mail on one node (docs/adr/0008-end-to-end-mail.md), over real HTTP and a
 * real encrypted database: the node seals for the identities whose keys it holds and opens for
 * them; a self-custodial identity gets only the envelope, which a decrypter written with
 * node:crypto alone opens (test/support/e2ee-independent.ts), and posts envelopes it made, which
 * the node checks before storing anything; no downgrade to plaintext without it being asked for
 * by name, and never between two parties that can both encrypt.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EncryptionKeyAssertion } from '../../server/crypto/e2ee/key-assertion.ts';
import { sealEnvelope, type SealParty } from '../../server/crypto/e2ee/seal-envelope.ts';
import { generateX25519KeyPair } from '../../server/crypto/e2ee/x25519.ts';
import { openNodeDatabase } from '../support/database.ts';
import { independentDecrypt, type Obj } from '../support/e2ee-independent.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { createSelfCustodial, envelopeSigner, publishEncryptionKey, type PublishedKey, type SelfCustodial } from '../support/self-custodial.ts';

const DOMAIN = 'e2ee.test';
let t: TestNode;
let stored: Awaited<ReturnType<typeof openNodeDatabase>>;
let project: Project;
/** Custodial: the node holds their keys. */
let ann: any;
let bob: any;
/** Self-custodial, with a published encryption key. */
let sally: SelfCustodial & PublishedKey;
/** Self-custodial, without one. */
let sam: SelfCustodial;

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  project = await createProject(t, 'e2ee', DOMAIN);
  ann = await createIdentity(t, project.api_key, persistent('ann'));
  bob = await createIdentity(t, project.api_key, persistent('bob'));
  const client = await createSelfCustodial(t, project.api_key, 'sally');
  // Sally's client publishes her encryption key, signed with her own key.
  sally = { ...client, ...(await publishEncryptionKey(t, client)) };
  sam = await createSelfCustodial(t, project.api_key, 'sam');
  stored = await openNodeDatabase(t.dataDir);
});
afterAll(async () => {
  stored.close();
  await t.stop();
});

const send = (token: string, body: unknown) => t.request('POST', '/v1/messages', { token, body });
const inboxItem = async (token: string, messageId: string) =>
  expectOk(await t.request('GET', `/v1/messages/inbox?message_id=${messageId}`, { token })).messages[0];
const sentItem = async (token: string, messageId: string) => expectOk(await t.request('GET', `/v1/messages/sent/${messageId}`, { token }));
const row = (messageId: string) =>
  stored.db.prepare('SELECT subject, body, content_mode, encrypted_envelope FROM messages WHERE message_id = ?').get(messageId) as
    { subject: string; body: string; content_mode: string; encrypted_envelope: string | null } | undefined;
/** The identities the node keeps a message's opened text for: its sender and or its recipient, by the row's flags. */
const opened = (messageId: string) =>
  stored.db
    .prepare(
      `SELECT agent_id FROM (
         SELECT from_agent_id AS agent_id FROM messages WHERE message_id = @messageId AND sender_reads = 1
         UNION SELECT to_agent_id FROM messages WHERE message_id = @messageId AND recipient_reads = 1)
       ORDER BY agent_id`,
    )
    .pluck()
    .all({ messageId });
const mailCount = () => stored.db.prepare('SELECT count(*) FROM messages').pluck().get() as number;

/** The recipient's key as a sender's client finds it: served with the identity's did:key. */
async function publishedKey(didAw: string): Promise<EncryptionKeyAssertion> {
  return expectOk(await t.request('GET', `/v1/did/${didAw}/key`)).encryption_key as EncryptionKeyAssertion;
}

/** An envelope sally's client makes for `to` (a custodial identity of the node), as upstream's clients make one. */
async function sallyEnvelope(
  to: any,
  content: { subject: string; body: string },
  options: { createdAt?: number; messageId?: string; conversationId?: string } = {},
) {
  const sender: SealParty = { address: `${DOMAIN}/sally`, did: sally.key.didKey, stableId: sally.key.didSvc, encryptionKey: sally.assertion };
  const recipient: SealParty = { address: `${DOMAIN}/${to.alias}`, did: to.did_key, stableId: to.did_aw, encryptionKey: await publishedKey(to.did_aw) };
  const messageId = options.messageId ?? randomUUID();
  return sealEnvelope(
    {
      kind: 'mail',
      sender,
      recipients: [recipient],
      ...content,
      messageId,
      conversationId: options.conversationId ?? messageId,
      createdAt: options.createdAt ?? Date.now(),
    },
    envelopeSigner(sally.key),
  ) as unknown as Obj;
}

const postEnvelope = (envelope: Obj, to: string, extra: Record<string, unknown> = {}) =>
  send(sally.identity.api_key, {
    to_address: `${DOMAIN}/${to}`,
    content_mode: 'encrypted_v2',
    message_version: 2,
    encrypted_envelope: envelope,
    body: '',
    ...extra,
  });

describe('a custodial sender to a recipient that holds its own keys', () => {
  it('seals it: the recipient gets only the envelope, which its own key opens; the node keeps no plaintext of it', async () => {
    const sent = expectOk(await send(ann.api_key, { to_address: `${DOMAIN}/sally`, subject: 'Quarterly numbers', body: 'Revenue is up 12%.' }));
    const item = await inboxItem(sally.identity.api_key, sent.message_id);
    expect(item).toMatchObject({ end_to_end: true, content_mode: 'encrypted_v2', message_version: 2, subject: '', body: '', signature_status: 'verified' });
    const inner = independentDecrypt(item.encrypted_envelope as Obj, sally.encryption.privateKey);
    expect(inner).toMatchObject({ kind: 'mail', message_id: sent.message_id, subject: 'Quarterly numbers', body: 'Revenue is up 12%.' });
    // Stored: the envelope; kept opened only for the sender, whose keys the node holds.
    expect(row(sent.message_id)).toMatchObject({ subject: '', body: '', content_mode: 'encrypted_v2' });
    expect(JSON.stringify(row(sent.message_id))).not.toMatch(/Quarterly|Revenue/);
    expect(opened(sent.message_id)).toEqual([ann.agent_id]);
    expect(await sentItem(ann.api_key, sent.message_id)).toMatchObject({
      subject: 'Quarterly numbers',
      end_to_end: true,
      content_mode: 'server_readable_hosted',
    });
    // A client's key is not the node's: another key opens nothing.
    expect(() => independentDecrypt(item.encrypted_envelope as Obj, generateX25519KeyPair().privateKey)).toThrow('not a recipient');
  });
});

describe('a self-custodial sender posting its own envelope', () => {
  it('is checked and stored; the node opens it for the custodial recipient, and the sender reads its own copy', async () => {
    const envelope = await sallyEnvelope(bob, { subject: 'Lunch?', body: 'Thai at one.' });
    const sent = expectOk(await postEnvelope(envelope, 'bob'));
    expect(sent.message_id).toBe(envelope.message_id);
    expect(await inboxItem(bob.api_key, sent.message_id)).toMatchObject({
      end_to_end: true,
      content_mode: 'server_readable_hosted',
      subject: 'Lunch?',
      body: 'Thai at one.',
      from_did: sally.key.didKey,
      signature_status: 'verified',
    });
    expect(opened(sent.message_id)).toEqual([bob.agent_id]);
    // Sally's Sent is the envelope; her sender copy opens to the very bytes she sealed.
    const mine = await sentItem(sally.identity.api_key, sent.message_id);
    expect(mine).toMatchObject({ content_mode: 'encrypted_v2', subject: '', body: '' });
    expect(mine.encrypted_envelope).toEqual(envelope);
    expect(independentDecrypt(mine.encrypted_envelope as Obj, sally.encryption.privateKey)).toMatchObject({ subject: 'Lunch?', body: 'Thai at one.' });
  });

  it('takes the request upstream’s clients post (conversation_id, from_did beside the envelope), and answers its conversation', async () => {
    const [messageId, conversationId] = [randomUUID(), randomUUID()];
    const envelope = await sallyEnvelope(bob, { subject: 'Go client', body: 'as upstream sends it' }, { messageId, conversationId });
    const upstream = {
      message_id: messageId,
      conversation_id: conversationId,
      from_did: sally.key.didKey,
      timestamp: envelope.created_at,
      to_did: bob.did_key,
    };
    const sent = expectOk(await postEnvelope(envelope, 'bob', upstream));
    expect(sent.message_id).toBe(messageId);
    // Every reader gets the conversation the envelope is bound to, which upstream's clients compare with it.
    expect(await inboxItem(bob.api_key, messageId)).toMatchObject({ conversation_id: conversationId, thread_id: conversationId, body: 'as upstream sends it' });
    const mine = await sentItem(sally.identity.api_key, messageId);
    expect(mine).toMatchObject({ conversation_id: conversationId, content_mode: 'encrypted_v2' });
    expect((mine.encrypted_envelope as Obj).conversation_id).toBe(conversationId);
    // Named beside an envelope, from_did must be the sender's own key.
    const other = await sallyEnvelope(bob, { subject: '', body: 'x' });
    expectRefusal(await postEnvelope(other, 'bob', { from_did: bob.did_key }), 422, /from_did must match the authenticated sender/, 'SVC_ERR_SIGNER_MISMATCH');
    // One thread by two names must be one.
    const third = await sallyEnvelope(bob, { subject: '', body: 'y' });
    expectRefusal(await postEnvelope(third, 'bob', { conversation_id: randomUUID(), thread_id: randomUUID() }), 422, /conversation_id/, 'SVC_ERR_VALIDATION');
    // A mail the node seals names the conversation it sealed it to: its thread, else its own id.
    const sealed = expectOk(await send(ann.api_key, { to_address: `${DOMAIN}/sally`, subject: 's', body: 'sealed here' }));
    const got = await inboxItem(sally.identity.api_key, sealed.message_id);
    expect(got.conversation_id).toBe(sealed.message_id);
    expect((got.encrypted_envelope as Obj).conversation_id).toBe(sealed.message_id);
  });

  it('answers an identical retry as the first time, and refuses another envelope under the same id', async () => {
    const messageId = randomUUID();
    const envelope = await sallyEnvelope(bob, { subject: '', body: 'once' }, { messageId });
    const first = expectOk(await postEnvelope(envelope, 'bob', { message_id: messageId }));
    expect(expectOk(await postEnvelope(envelope, 'bob', { message_id: messageId }))).toEqual(first);
    const other = await sallyEnvelope(bob, { subject: '', body: 'twice' }, { messageId });
    expectRefusal(await postEnvelope(other, 'bob', { message_id: messageId }), 409, /message_id/, 'SVC_ERR_MESSAGE_ID_REUSED');
    expect((await inboxItem(bob.api_key, messageId)).body).toBe('once');
  });

  it('refuses what fails the contract, each with its code and a 4xx, and stores nothing', async () => {
    const before = mailCount();
    const good = await sallyEnvelope(bob, { subject: 's', body: 'b' });
    const refused = async (envelope: unknown, code: Parameters<typeof expectRefusal>[3], detail: RegExp, to = 'bob') =>
      expectRefusal(await postEnvelope(envelope as Obj, to), 422, detail, code);
    // Stale: dated ten minutes ahead, outside the five-minute window (as a replay from the past is, tested in the core).
    await refused(
      await sallyEnvelope(bob, { subject: 's', body: 'b' }, { createdAt: Date.now() + 10 * 60_000 }),
      'SVC_ERR_E2EE_ENVELOPE_STALE',
      /stale_envelope/,
    );
    // A suite downgrade, a changed ciphertext, a replaced signature.
    await refused({ ...good, crypto: { ...(good.crypto as Obj), suite: 'aweb-e2ee-v1.weak' } }, 'SVC_ERR_E2EE_ENVELOPE_UNSUPPORTED', /unsupported_suite/);
    const ciphertext = good.ciphertext as string;
    // The signature covers the ciphertext, so a changed one fails there first.
    await refused({ ...good, ciphertext: `${ciphertext[0] === 'A' ? 'B' : 'A'}${ciphertext.slice(1)}` }, 'SVC_ERR_E2EE_SIGNATURE_INVALID', /invalid_signature/);
    await refused(
      { ...good, signature: (await sallyEnvelope(bob, { subject: 's', body: 'b' })).signature },
      'SVC_ERR_E2EE_SIGNATURE_INVALID',
      /invalid_signature/,
    );
    // Malformed wraps and a body that is no envelope at all.
    await refused({ ...good, key_wraps: [{}] }, 'SVC_ERR_E2EE_ENVELOPE_MALFORMED', /malformed_envelope/);
    await refused({}, 'SVC_ERR_E2EE_ENVELOPE_UNSUPPORTED', /unsupported_version/);
    // Sealed for bob, sent to ann: the recipient substituted.
    await refused(good, 'SVC_ERR_E2EE_ENVELOPE_MISMATCH', /binding_mismatch/, 'ann');
    // Counts and size are bounded before anything reads the envelope.
    await refused({ ...good, key_wraps: Array.from({ length: 52 }, () => ({})) }, 'SVC_ERR_VALIDATION', /key wraps/);
    await refused({ ...good, padding: 'x'.repeat(200 * 1024) }, 'SVC_ERR_VALIDATION', /bytes/);
    expect(mailCount()).toBe(before);
  });
});

describe('no downgrade', () => {
  it('sends plaintext to a recipient without a key only when the send names it, marked as such', async () => {
    const before = mailCount();
    expectRefusal(await send(ann.api_key, { to_address: `${DOMAIN}/sam`, body: 'hello' }), 409, /legacy_plaintext_v1/, 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING');
    expect(mailCount()).toBe(before);
    const sent = expectOk(await send(ann.api_key, { to_address: `${DOMAIN}/sam`, body: 'hello', content_mode: 'legacy_plaintext_v1' }));
    expect(await inboxItem(sam.identity.api_key, sent.message_id)).toMatchObject({
      end_to_end: false,
      content_mode: 'legacy_plaintext_v1',
      message_version: 1,
      body: 'hello',
    });
  });

  it('never sends plaintext between two parties that can both encrypt, not even when asked', async () => {
    const before = mailCount();
    expectRefusal(
      await send(ann.api_key, { to_address: `${DOMAIN}/bob`, body: 'in the clear', content_mode: 'legacy_plaintext_v1' }),
      409,
      /never as plaintext/,
      'SVC_ERR_E2EE_REQUIRED',
    );
    expect(mailCount()).toBe(before);
  });
});
