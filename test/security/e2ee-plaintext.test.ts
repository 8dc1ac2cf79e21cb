/**
 * Where the plaintext of end-to-end encrypted mail and chat may go (docs/adr/0008-end-to-end-mail.md,
 * docs/adr/0009-end-to-end-chat.md), on a real `svc-node serve --log` process: canary strings sent
 * as mail and chat, then looked for everywhere
 * else. Never in the logs, the stored message rows, the owner's feed, another identity's answers,
 * streams or search; the node keeps what it opened only for the identities whose keys it holds,
 * and of a mail between two identities that hold their own keys it never has a byte. The stored
 * envelopes open, with keys read back from custody after the node stopped and a decrypter that is
 * not the node's, to the very bytes sent: the recipient's wrap and the sender's own copy alike.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptionKeyId, type EncryptionKeyAssertion } from '../../server/crypto/e2ee/key-assertion.ts';
import { sealEnvelope } from '../../server/crypto/e2ee/seal-envelope.ts';
import { x25519PublicKey } from '../../server/crypto/e2ee/x25519.ts';
import { storedColumns } from '../../server/surfaces/core/mail/store/messages.ts';
import { independentDecrypt, type Obj } from '../support/e2ee-independent.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { createSelfCustodial, envelopeSigner, publishEncryptionKey, type PublishedKey, type SelfCustodial } from '../support/self-custodial.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';
import { dumpDatabase, openStoppedNode, startLoggedNode, type LoggedNode, type StoppedNode } from './support.ts';

const DOMAIN = 'sealed.test';
const canary = (what: string): string => `${what}canary${randomBytes(8).toString('hex')}`;
/** ann → bob: both custodial. */
const HOSTED = { subject: canary('subject'), body: canary('body') };
/** ann → sally: custodial to self-custodial. */
const TO_SELF = { subject: canary('subject'), body: canary('body') };
/** sally → sue: neither's keys are the node's. */
const BETWEEN_SELVES = { subject: canary('subject'), body: canary('body') };
/** Chat: ann → bob, and ann → bob and sally (a group where sally holds her own keys). */
const CHAT_HOSTED = canary('chat');
const CHAT_GROUP = canary('chat');

let node: LoggedNode;
let output = '';
let stopped: StoppedNode;
let ann: any;
let bob: any;
let carl: any;
let sally: SelfCustodial & PublishedKey;
let sue: SelfCustodial & PublishedKey;
const ids: Record<'hosted' | 'toSelf' | 'betweenSelves' | 'chatHosted' | 'chatGroup', string> = {
  hosted: '',
  toSelf: '',
  betweenSelves: '',
  chatHosted: '',
  chatGroup: '',
};
let groupSession = '';
/** Every answer body and stream frame someone other than a mail's recipient or sender received. */
const othersSaw: string[] = [];
const ownerFeed: string[] = [];

/** A self-custodial identity whose client published its own encryption key. */
async function selfCustodial(projectKey: string, name: string): Promise<SelfCustodial & PublishedKey> {
  const client = await createSelfCustodial(node.t, projectKey, name);
  return { ...client, ...(await publishEncryptionKey(node.t, client)) };
}

/** Reads as someone who is neither sender nor recipient, keeping what it was answered. */
async function asOther(token: string, path: string): Promise<void> {
  othersSaw.push(JSON.stringify(expectOk(await node.t.request('GET', path, { token }))));
}

beforeAll(async () => {
  node = await startLoggedNode();
  const { t } = node;
  await createNodeNamespace(t, DOMAIN);
  const project = await createProject(t, 'sealed', DOMAIN);
  ann = await createIdentity(t, project.api_key, persistent('ann'));
  bob = await createIdentity(t, project.api_key, persistent('bob'));
  carl = await createIdentity(t, project.api_key, persistent('carl'));
  sally = await selfCustodial(project.api_key, 'sally');
  sue = await selfCustodial(project.api_key, 'sue');

  const deadline = encodeURIComponent(deadlineIn(60));
  const feed: SseClient = (await connectSse(`${t.url}/v1/node/events/stream?deadline=${deadline}`, { token: t.ownerToken })).stream!;
  const carlStream: SseClient = (await connectSse(`${t.url}/v1/events/stream?deadline=${deadline}`, { token: carl.api_key })).stream!;

  ids.hosted = expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_address: `${DOMAIN}/bob`, ...HOSTED } })).message_id;
  ids.toSelf = expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_address: `${DOMAIN}/sally`, ...TO_SELF } })).message_id;
  const messageId = crypto.randomUUID();
  const envelope = sealEnvelope(
    {
      kind: 'mail',
      sender: { address: `${DOMAIN}/sally`, did: sally.key.didKey, stableId: sally.key.didSvc, encryptionKey: sally.assertion },
      recipients: [{ address: `${DOMAIN}/sue`, did: sue.key.didKey, stableId: sue.key.didSvc, encryptionKey: sue.assertion }],
      ...BETWEEN_SELVES,
      messageId,
      conversationId: messageId,
      createdAt: Date.now(),
    },
    envelopeSigner(sally.key),
  );
  ids.betweenSelves = expectOk(
    await t.request('POST', '/v1/messages', {
      token: sally.identity.api_key,
      body: { to_address: `${DOMAIN}/sue`, content_mode: 'encrypted_v2', message_version: 2, encrypted_envelope: envelope, body: '' },
    }),
  ).message_id;

  // Chat: sealed for every other participant; sally's session stream is open as it arrives.
  ids.chatHosted = expectOk(
    await t.request('POST', '/v1/chat/sessions', { token: ann.api_key, body: { to_addresses: [`${DOMAIN}/bob`], message: CHAT_HOSTED } }),
  ).message_id;
  const group = expectOk(
    await t.request('POST', '/v1/chat/sessions', {
      token: ann.api_key,
      body: { to_addresses: [`${DOMAIN}/bob`, `${DOMAIN}/sally`], message: 'opening' },
    }),
  );
  groupSession = group.session_id;
  const sallySession: SseClient = (await connectSse(`${t.url}/v1/chat/sessions/${groupSession}/stream?deadline=${deadline}`, { token: sally.identity.api_key }))
    .stream!;
  ids.chatGroup = expectOk(
    await t.request('POST', `/v1/chat/sessions/${groupSession}/messages`, { token: ann.api_key, body: { body: CHAT_GROUP } }),
  ).message_id;
  for (;;) {
    const frame = await sallySession.next(5_000);
    othersSaw.push(JSON.stringify(frame));
    if (frame.event === 'message' && (frame.data as { message_id?: string }).message_id === ids.chatGroup) break;
  }
  sallySession.close();

  // Whoever is not a party: carl's inbox, search, and stream; the owner's feed.
  for (const { subject } of [HOSTED, TO_SELF, BETWEEN_SELVES]) await asOther(carl.api_key, `/v1/search?q=${subject}`);
  for (const text of [CHAT_HOSTED, CHAT_GROUP]) await asOther(carl.api_key, `/v1/search?q=${text}`);
  // Sally is in the group, but holds her own keys: her history, pending, list and search get the envelope, never the words.
  await asOther(sally.identity.api_key, `/v1/chat/sessions/${groupSession}/messages`);
  await asOther(sally.identity.api_key, '/v1/chat/pending');
  await asOther(sally.identity.api_key, '/v1/chat/sessions');
  await asOther(sally.identity.api_key, `/v1/search?q=${CHAT_GROUP}`);
  await asOther(carl.api_key, '/v1/messages/inbox');
  // The self-custodial parties get envelopes, never words: their own answers count as others' here.
  await asOther(sally.identity.api_key, '/v1/messages/inbox');
  await asOther(sally.identity.api_key, '/v1/messages/sent');
  await asOther(sue.identity.api_key, '/v1/messages/inbox');
  for (const { subject } of [TO_SELF, BETWEEN_SELVES]) {
    await asOther(sally.identity.api_key, `/v1/search?q=${subject}`);
    await asOther(sue.identity.api_key, `/v1/search?q=${subject}`);
  }
  await asOther(t.ownerToken, `/v1/node/search?q=${BETWEEN_SELVES.subject}`);
  // connected, then a wake for each of the three mails, and one per recipient of each chat message (1 + 2 + 2).
  for (let i = 0; i < 9; i++) ownerFeed.push(JSON.stringify(await feed.next(5_000)));
  othersSaw.push(...carlStream.frames.map((frame) => JSON.stringify(frame)));
  feed.close();
  carlStream.close();

  // Positive controls: the parties whose keys the node holds read what was sent.
  expect(expectOk(await t.request('GET', `/v1/messages/inbox?message_id=${ids.hosted}`, { token: bob.api_key })).messages[0]).toMatchObject(HOSTED);
  expect(expectOk(await t.request('GET', `/v1/messages/sent/${ids.toSelf}`, { token: ann.api_key }))).toMatchObject(TO_SELF);
  const bobReads = JSON.stringify(expectOk(await t.request('GET', `/v1/chat/sessions/${groupSession}/messages`, { token: bob.api_key })));
  expect(bobReads).toContain(CHAT_GROUP);
  expect(JSON.stringify(expectOk(await t.request('GET', `/v1/search?q=${CHAT_HOSTED}`, { token: bob.api_key })))).toContain(ids.chatHosted);

  output = Object.values(await node.stop()).join('\n');
  stopped = await openStoppedNode(node.dataDir);
});
afterAll(() => {
  stopped.close();
});

const canaries = [...[HOSTED, TO_SELF, BETWEEN_SELVES].flatMap(({ subject, body }) => [subject, body]), CHAT_HOSTED, CHAT_GROUP];
const found = (text: string) => canaries.filter((c) => text.includes(c));

describe('the plaintext of end-to-end encrypted mail', () => {
  it('never reaches the logs, the owner feed, or anything a non-party is answered or streamed', () => {
    expect(output).toContain('"url"');
    expect(found(output)).toEqual([]);
    expect(ownerFeed.join('\n')).toContain(ids.hosted);
    expect(ownerFeed.join('\n')).toContain(ids.chatGroup);
    expect(found(ownerFeed.join('\n'))).toEqual([]);
    expect(othersSaw.length).toBeGreaterThan(10);
    expect(found(othersSaw.join('\n'))).toEqual([]);
  });

  it('is not in the stored messages; the node keeps what it opened only for the identities whose keys it holds', () => {
    // The row as stored (what every reader of a row that is not its own side's takes): no plaintext.
    const rows = stopped.db
      .prepare(`SELECT ${storedColumns('messages')} FROM messages WHERE message_id IN (?, ?, ?)`)
      .all(ids.hosted, ids.toSelf, ids.betweenSelves);
    expect(rows).toHaveLength(3);
    expect(found(JSON.stringify(rows))).toEqual([]);
    // What the node opened sits beside it, flagged for each party whose keys the node holds: listed here per identity.
    const kept = stopped.db
      .prepare(
        `SELECT message_id, from_agent_id AS agent_id FROM messages WHERE sender_reads = 1
         UNION SELECT message_id, to_agent_id FROM messages WHERE recipient_reads = 1
         ORDER BY message_id, agent_id`,
      )
      .all();
    expect(kept).toEqual(
      [
        { message_id: ids.hosted, agent_id: ann.agent_id },
        { message_id: ids.hosted, agent_id: bob.agent_id },
        { message_id: ids.toSelf, agent_id: ann.agent_id },
      ].sort((a, b) => (a.message_id + a.agent_id < b.message_id + b.agent_id ? -1 : 1)),
    );
  });

  it('is not in the stored chat messages; the node keeps what it opened only for the participants whose keys it holds', () => {
    const rows = stopped.db.prepare('SELECT * FROM chat_messages WHERE message_id IN (?, ?)').all(ids.chatHosted, ids.chatGroup);
    expect(rows).toHaveLength(2);
    expect(found(JSON.stringify(rows))).toEqual([]);
    const kept = stopped.db.prepare('SELECT agent_id FROM chat_plaintext WHERE message_id = ? ORDER BY agent_id').pluck();
    expect(kept.all(ids.chatHosted)).toEqual([ann.agent_id, bob.agent_id].sort());
    expect(kept.all(ids.chatGroup)).toEqual([ann.agent_id, bob.agent_id].sort());
  });

  it('between two identities holding their own keys, is nowhere in the database, whatever table or index', () => {
    const values = dumpDatabase(stopped.db).map(({ value }) => value.toString('utf8'));
    for (const secret of [BETWEEN_SELVES.subject, BETWEEN_SELVES.body]) expect(values.filter((value) => value.includes(secret))).toEqual([]);
  });

  it("opens, with keys custody held and a decrypter that is not the node's, to the bytes sent: the recipient's wrap and the sender's copy alike", () => {
    const envelopeOf = (id: string) =>
      JSON.parse(stopped.db.prepare('SELECT encrypted_envelope FROM messages WHERE message_id = ?').pluck().get(id) as string) as Obj;
    const keyOf = (agentId: string) => {
      const assertion = JSON.parse(
        stopped.db.prepare('SELECT assertion FROM identity_encryption_keys WHERE agent_id = ? AND archived_at IS NULL').pluck().get(agentId) as string,
      ) as EncryptionKeyAssertion;
      const held = stopped.encryptionKeys.find(({ privateKey }) => encryptionKeyId(x25519PublicKey(privateKey)) === assertion.encryption_key_id);
      return held!.privateKey;
    };
    const hosted = envelopeOf(ids.hosted);
    expect(independentDecrypt(hosted, keyOf(bob.agent_id))).toMatchObject(HOSTED);
    expect(independentDecrypt(hosted, keyOf(ann.agent_id))).toMatchObject(HOSTED);
    const toSelf = envelopeOf(ids.toSelf);
    expect(independentDecrypt(toSelf, sally.encryption.privateKey)).toMatchObject(TO_SELF);
    expect(independentDecrypt(toSelf, keyOf(ann.agent_id))).toMatchObject(TO_SELF);
    // Neither a bystander's key nor the node's keys for others open a mail that is not theirs.
    expect(() => independentDecrypt(hosted, keyOf(carl.agent_id))).toThrow('not a recipient');
    expect(() => independentDecrypt(envelopeOf(ids.betweenSelves), keyOf(ann.agent_id))).toThrow('not a recipient');
    expect(independentDecrypt(envelopeOf(ids.betweenSelves), sue.encryption.privateKey)).toMatchObject(BETWEEN_SELVES);
  });
});
