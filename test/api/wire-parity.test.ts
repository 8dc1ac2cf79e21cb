/**
 * Wire parity with upstream (docs/adr/0001-upstream-wire-primitives.md): requests upstream clients
 * send that were refused (`to_agent_id`, `thread_id`, `message_id` and `timestamp`,
 * `<project>~<alias>`), a client's message_id as an idempotency key, mail threads, the address a
 * `{name, did_key}` assignment gives an identity, upstream's announcements beside a received
 * message, and `GET /health`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { testKey } from '../support/keys.ts';
import { connectMcp } from '../support/mcp.ts';
import { assignAddress, registerByOwner } from '../support/namespaces.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
const DOMAIN = 'parity.test';
let alpha: Project;
let beta: Project;
let ann: any; // alpha, persistent: parity.test/ann
let bo: any; // alpha, ephemeral
let cy: any; // beta, ephemeral

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  alpha = await createProject(t, 'parity-alpha', DOMAIN);
  beta = await createProject(t, 'parity-beta');
  ann = await createIdentity(t, alpha.api_key, persistent('ann'));
  bo = await createIdentity(t, alpha.api_key, { alias: 'bo' });
  cy = await createIdentity(t, beta.api_key, { alias: 'cy' });
});
afterAll(async () => {
  await t.stop();
});

const mail = (who: any, body: unknown) => t.request('POST', '/v1/messages', { token: who.api_key, body });
const inbox = async (who: any, query = '') => expectOk(await t.request('GET', `/v1/messages/inbox${query}`, { token: who.api_key })).messages;
const createChat = (who: any, body: unknown) => t.request('POST', '/v1/chat/sessions', { token: who.api_key, body });
const chatSend = (who: any, sessionId: string, body: unknown) => t.request('POST', `/v1/chat/sessions/${sessionId}/messages`, { token: who.api_key, body });
const history = async (who: any, sessionId: string) =>
  expectOk(await t.request('GET', `/v1/chat/sessions/${sessionId}/messages`, { token: who.api_key })).messages;
const seconds = (offset = 0) => new Date(Math.floor(Date.now() / 1000) * 1000 + offset * 1000).toISOString().replace('.000Z', 'Z');

describe("a client's message_id is the send's idempotency key", () => {
  it('mail: the same id and content again answers as the first send and sends nothing; other content is a 409', async () => {
    const message_id = randomUUID();
    const request = { to_alias: 'bo', subject: 'Deploy', body: 'Ship it', message_id, timestamp: seconds() };
    const first = expectOk(await mail(ann, request));
    expect(first.message_id).toBe(message_id);
    // A retry after a timeout, rebuilt with a fresh timestamp: the same answer, nothing sent twice.
    const again = expectOk(await mail(ann, { ...request, timestamp: seconds(2), priority: 'normal' }));
    expect(again).toEqual(first);
    expect((await inbox(bo, `?message_id=${message_id}`)).map((m: any) => m.body)).toEqual(['Ship it']);
    expect((await inbox(bo)).filter((m: any) => m.message_id === message_id)).toHaveLength(1);

    // Other content under the id: refused with its own code, and still nothing sent.
    expectRefusal(await mail(ann, { ...request, body: 'Do not ship' }), 409, /already used for another message/, 'SVC_ERR_MESSAGE_ID_REUSED');
    expectRefusal(await mail(ann, { ...request, to_alias: undefined, to_address: `${DOMAIN}/ann` }), 409, undefined, 'SVC_ERR_MESSAGE_ID_REUSED');
    // Another sender cannot take it.
    expectRefusal(await mail(bo, { to_alias: 'ann', body: 'Ship it', message_id }), 409, /already taken/, 'SVC_ERR_MESSAGE_ID_TAKEN');
    expect(await inbox(ann, `?message_id=${message_id}`)).toEqual([]);
  });

  it('chat: create-or-send and a send into a session happen once per id; other content is a 409', async () => {
    const message_id = randomUUID();
    const request = { to_aliases: ['bo'], message: 'Are you there?', message_id, timestamp: seconds() };
    const first = expectOk(await createChat(ann, request));
    expect(first.message_id).toBe(message_id);
    expect(expectOk(await createChat(ann, { ...request, timestamp: seconds(3) }))).toEqual(first);
    expectRefusal(await createChat(ann, { ...request, message: 'Hello?' }), 409, undefined, 'SVC_ERR_MESSAGE_ID_REUSED');
    // A chat id is not a mail id either.
    expectRefusal(await mail(ann, { to_alias: 'bo', body: 'Are you there?', message_id }), 409, undefined, 'SVC_ERR_MESSAGE_ID_REUSED');

    const reply_id = randomUUID();
    const reply = expectOk(await chatSend(bo, first.session_id, { body: 'Yes', message_id: reply_id, timestamp: seconds() }));
    expect(reply).toEqual({ message_id: reply_id, session_id: first.session_id, delivered: true, extends_wait_seconds: 0 });
    expect(expectOk(await chatSend(bo, first.session_id, { body: 'Yes', message_id: reply_id }))).toEqual(reply);
    expectRefusal(await chatSend(bo, first.session_id, { body: 'No', message_id: reply_id }), 409, undefined, 'SVC_ERR_MESSAGE_ID_REUSED');
    expectRefusal(await chatSend(ann, first.session_id, { body: 'Yes', message_id: reply_id }), 409, undefined, 'SVC_ERR_MESSAGE_ID_TAKEN');

    expect((await history(ann, first.session_id)).map((m: any) => [m.message_id, m.body])).toEqual([
      [message_id, 'Are you there?'],
      [reply_id, 'Yes'],
    ]);
    expectValidation(await createChat(ann, { to_aliases: ['bo'], message: 'x', message_id: 'not-a-uuid' }), 'message_id');
  });
});

describe("upstream's recipient forms", () => {
  it('to_agent_id reaches an identity of this node; with another selector it must name the same one', async () => {
    const sent = expectOk(await mail(ann, { to_agent_id: bo.agent_id, body: 'by id' }));
    expect(sent.messages).toEqual([expect.objectContaining({ to: 'bo', to_alias: 'bo', to_did: bo.did_key })]);
    expect((await inbox(bo, `?message_id=${sent.message_id}`))[0]).toMatchObject({ body: 'by id', to_alias: 'bo' });
    // Another project's identity is named as upstream names it across projects.
    expect(expectOk(await mail(ann, { to_agent_id: cy.agent_id, body: 'x' })).messages[0]).toMatchObject({ to: 'parity-beta~cy', to_alias: null });
    expect(expectOk(await mail(ann, { to_agent_id: bo.agent_id, to_alias: 'bo', body: 'both' })).messages).toHaveLength(1);
    expectRefusal(
      await mail(ann, { to_agent_id: bo.agent_id, to_address: `${DOMAIN}/ann`, body: 'x' }),
      422,
      /to_agent_id must match the to_address recipient/,
    );
    expectRefusal(await mail(ann, { to_agent_id: randomUUID(), body: 'x' }), 404, undefined, 'SVC_ERR_RECIPIENT_NOT_FOUND');
  });

  it('<project>~<alias> names an identity of another project, in mail and chat; an address works in an alias field', async () => {
    const sent = expectOk(await mail(bo, { to_alias: 'parity-beta~cy', body: 'across projects' }));
    expect(sent.messages[0]).toMatchObject({ to: 'parity-beta~cy', to_did: cy.did_key });
    const [item] = await inbox(cy, `?message_id=${sent.message_id}`);
    // The sender has no address: the reader in another project gets upstream's `<project>~<alias>`.
    expect(item).toMatchObject({ from_alias: 'bo', from_address: 'parity-alpha~bo', to_alias: 'cy' });
    expect(JSON.parse(item.signed_payload).to).toBe('parity-beta~cy');
    // The reply goes back the same way.
    expect(expectOk(await mail(cy, { to_alias: item.from_address, body: 'back' })).messages[0]).toMatchObject({ to: 'parity-alpha~bo', to_did: bo.did_key });

    const chat = expectOk(await createChat(bo, { to_aliases: ['parity-beta~cy'], message: 'hi from alpha' }));
    expect(chat.participants.map((p: any) => p.alias).sort()).toEqual(['bo', 'cy']);
    expect(expectOk(await mail(bo, { to_alias: `${DOMAIN}/ann`, body: 'address in to_alias' })).messages[0]).toMatchObject({
      to: `${DOMAIN}/ann`,
      to_did: ann.did_key,
    });

    expectRefusal(await mail(bo, { to_alias: 'no-such-project~cy', body: 'x' }), 404, /project no-such-project/, 'SVC_ERR_RECIPIENT_NOT_FOUND');
    expectValidation(await createChat(bo, { to_aliases: ['a~b~c'], message: 'x' }), 'to_aliases');
  });

  it('leaves control signals to the sender’s own project: `<project>~<alias>` reaches no one there', async () => {
    const mcp = await connectMcp(t.url, bo.api_key);
    try {
      const refused = await mcp.call('send_control', { alias: 'parity-beta~cy', signal: 'pause' });
      expect(refused).toMatchObject({ isError: true, body: expect.objectContaining({ code: 'SVC_ERR_RECIPIENT_NOT_FOUND' }) });
    } finally {
      await mcp.close();
    }
    expectValidation(await t.request('POST', '/v1/agents/parity-beta~cy/control', { token: bo.api_key, body: { signal: 'pause' } }), 'alias');
  });
});

describe('mail threads (thread_id)', () => {
  it('stores the thread on every copy, returns it, and lists a thread from the inbox and Sent', async () => {
    const root = expectOk(await mail(ann, { to_alias: 'bo', subject: 'Plan', body: 'Start?' }));
    const reply = expectOk(await mail(bo, { to_alias: 'ann', subject: 'Re: Plan', body: 'Yes', thread_id: root.message_id }));
    const again = expectOk(await mail(ann, { to_aliases: ['bo', 'parity-beta~cy'], subject: 'Re: Plan', body: 'Go', thread_id: root.message_id }));
    expect((await inbox(bo, `?message_id=${root.message_id}`))[0].thread_id).toBeNull();
    expect((await inbox(ann, `?message_id=${reply.message_id}`))[0].thread_id).toBe(root.message_id);
    expect((await inbox(cy, `?message_id=${again.messages[1].message_id}`))[0].thread_id).toBe(root.message_id);

    // The thread, newest first: its first message and every mail naming it, from either folder.
    expectOk(await t.request('POST', `/v1/messages/${root.message_id}/archive`, { token: bo.api_key }));
    expect((await inbox(bo, `?thread_id=${root.message_id}`)).map((m: any) => m.body)).toEqual(['Go', 'Start?']);
    expect((await inbox(bo, `?thread_id=${root.message_id}&folder=inbox`)).map((m: any) => m.body)).toEqual(['Go']);
    const sent = expectOk(await t.request('GET', `/v1/messages/sent?thread_id=${root.message_id}`, { token: ann.api_key })).messages;
    expect(sent.map((m: any) => [m.body, m.thread_id])).toEqual([
      ['Go', root.message_id],
      ['Go', root.message_id],
      ['Start?', null],
    ]);
    expectValidation(await mail(ann, { to_alias: 'bo', body: 'x', thread_id: 'not-a-uuid' }), 'thread_id');
  });
});

describe('an address assigned to a bare did:key', () => {
  it('is the address of the identity whose current key it is: contacts-only recipients accept it, and it can send to other nodes', async () => {
    const controller = testKey();
    expectOk(await registerByOwner(t, 'bare.test', controller.didKey), 201);
    const dee = await createIdentity(t, alpha.api_key, { alias: 'dee' });
    expectOk(await assignAddress(t, controller, 'bare.test', { name: 'dee', did_key: dee.did_key }), 201);
    const me = expectOk(await t.request('GET', '/v1/auth/introspect', { token: dee.api_key }));
    expect(me.address).toBe('bare.test/dee');

    // A contacts-only recipient in another project that added that address accepts dee's mail.
    const guarded = await createIdentity(t, beta.api_key, { alias: 'guarded', address_reachability: 'contacts-only' });
    expectRefusal(await mail(dee, { to_alias: 'parity-beta~guarded', body: 'not yet' }), 403, undefined, 'SVC_ERR_RECIPIENT_CONTACTS_ONLY');
    expectOk(await t.request('POST', '/v1/contacts', { token: guarded.api_key, body: { contact_address: 'bare.test/dee' } }));
    const sent = expectOk(await mail(dee, { to_alias: 'parity-beta~guarded', body: 'now' }));
    const [item] = await inbox(guarded, `?message_id=${sent.message_id}`);
    expect(item).toMatchObject({ from_address: 'bare.test/dee', is_contact: true });
    expect(JSON.parse(item.signed_payload).from).toBe('bare.test/dee');

    // Mail to another node no longer asks for an address first.
    const far = expectOk(await mail(dee, { to_address: 'elsewhere.example/someone', body: 'hello there' }));
    expect(far).toMatchObject({ status: 'queued', messages: [expect.objectContaining({ to_address: 'elsewhere.example/someone', status: 'queued' })] });

    // The address resolves to the identity (its own project sees who).
    expect(expectOk(await t.request('GET', '/v1/agents/resolve/bare.test/dee', { token: dee.api_key }))).toMatchObject({ local: true, agent_id: dee.agent_id });
  });
});

describe("upstream's announcements beside a received message", () => {
  it('carries the rotation that introduced the signing key, and the replacement that gave the address', async () => {
    const eve = await createIdentity(t, alpha.api_key, persistent('eve'));
    const rotated = expectOk(await t.request('PUT', '/v1/agents/me/rotate', { token: eve.api_key, body: {} }));
    const sent = expectOk(await mail(eve, { to_alias: 'bo', body: 'new key' }));
    const [item] = await inbox(bo, `?message_id=${sent.message_id}`);
    expect(item.signing_key_id).toBe(rotated.new_did);
    expect(item.rotation_announcement).toEqual(rotated.rotation_announcement);
    expect(item.replacement_announcement).toBeNull();

    const fay = await createIdentity(t, alpha.api_key, persistent('fay'));
    const replaced = expectOk(await t.owner('POST', `/api/v1/agents/${fay.agent_id}/replace`, {}));
    const chat = expectOk(await createChat(replaced, { to_aliases: ['bo'], message: 'I replaced fay' }));
    const [message] = await history(bo, chat.session_id);
    expect(message.replacement_announcement).toEqual(replaced.replacement_announcements[0]);
    expect(message.replacement_announcement).toMatchObject({ address: `${DOMAIN}/fay`, new_did: replaced.did_key, old_did: fay.did_key });
  });
});

describe('GET /health', () => {
  it('answers as upstream does: status and version, without credentials', async () => {
    const health = expectOk(await t.request('GET', '/health'));
    expect(health).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/), checks: { database: 'ok' } });
    expect(health.version).toBe(expectOk(await t.owner('GET', '/v1/node/info')).version);
  });
});
