/**
 * Chat (spec §4.4; upstream's shapes, docs/adr/0001-upstream-wire-primitives.md) over real HTTP:
 * sessions created or reused, signed messages, history, monotonic reads, pending with send-and-wait
 * windows, and the session stream with replay, live message and read-receipt frames.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyMessageSignature } from '../../server/crypto/message-signing.ts';
import { MAX_CHAT_MESSAGE_BYTES } from '../../contract/core/chat.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { testKey } from '../support/keys.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, type SseClient, type SseFrame } from '../support/sse.ts';

let t: TestNode;
const DOMAIN = 'chat.test';
let alpha: Project; // owns DOMAIN
let beta: Project; // no namespace

interface Who {
  api_key: string;
  agent_id: string;
  alias: string;
  did_key: string;
  did_aw: string | null;
  address: string | null;
}

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  alpha = await createProject(t, 'chat-alpha', DOMAIN);
  beta = await createProject(t, 'chat-beta');
});
afterAll(async () => {
  await t.stop();
});

const streams: SseClient[] = [];
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});

let counter = 0;
/** Three fresh ephemeral identities in `project` (alpha unless given), so tests do not share sessions. */
async function people(project: () => Project = () => alpha): Promise<[Who, Who, Who]> {
  const fresh = () => createIdentity(t, project().api_key, { alias: `p${++counter}` }) as Promise<Who>;
  return [await fresh(), await fresh(), await fresh()];
}

const create = (who: Who | string, body: unknown) => t.request('POST', '/v1/chat/sessions', { token: typeof who === 'string' ? who : who.api_key, body });
const send = (who: Who, sessionId: string, body: unknown) => t.request('POST', `/v1/chat/sessions/${sessionId}/messages`, { token: who.api_key, body });
const history = (who: Who, sessionId: string, query = '') => t.request('GET', `/v1/chat/sessions/${sessionId}/messages${query}`, { token: who.api_key });
const read = (who: Who, sessionId: string, messageId: unknown) =>
  t.request('POST', `/v1/chat/sessions/${sessionId}/read`, { token: who.api_key, body: { up_to_message_id: messageId } });
const pending = async (who: Who) => expectOk(await t.request('GET', '/v1/chat/pending', { token: who.api_key }));
const sessions = async (who: Who) => expectOk(await t.request('GET', '/v1/chat/sessions', { token: who.api_key })).sessions;

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
const streamPath = (sessionId: string, query = `deadline=${encodeURIComponent(inSeconds(30))}`) => `/v1/chat/sessions/${sessionId}/stream?${query}`;

/**
 * Opens the session stream as `who`. The viewer counts as connected once the response headers
 * are in: the server registers it in the same tick as it writes them.
 */
async function stream(who: Who, sessionId: string, query?: string): Promise<SseClient> {
  const response = await connectSse(`${t.url}${streamPath(sessionId, query)}`, { token: who.api_key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const client = response.stream as SseClient;
  streams.push(client);
  return client;
}

/** The next frame of `event`, skipping others. */
async function nextOf(client: SseClient, event: string, ms = 1000): Promise<SseFrame> {
  for (;;) {
    const frame = await client.next(ms);
    if (frame.event === event) return frame;
  }
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts (or reuses) the session `from` → `to` with one message; returns its ids. */
async function chat(from: Who, to: Who, message = 'hello', extra: Record<string, unknown> = {}) {
  return expectOk(await create(from, { to_aliases: [to.alias], message, ...extra }));
}

const signedFields = (m: { signed_payload: string }) => JSON.parse(m.signed_payload) as Record<string, unknown>;

function expectSigned(m: { signed_payload: string; signature: string; from_did: string }): void {
  expect(verifyMessageSignature(m)).toBe('verified');
  expect(verifyMessageSignature({ ...m, signed_payload: m.signed_payload.replace('"type":"chat"', '"type":"mail"') })).toBe('failed');
}

describe('authentication', () => {
  it('refuses no key and an unknown key (401) and a project key (403) on every chat endpoint', async () => {
    const [a, b] = await people();
    const { session_id, message_id } = await chat(a, b);
    const endpoints: [string, string, unknown?][] = [
      ['POST', '/v1/chat/sessions', { to_aliases: [b.alias], message: 'hi' }],
      ['GET', '/v1/chat/sessions'],
      ['GET', '/v1/chat/pending'],
      ['GET', `/v1/chat/sessions/${session_id}/messages`],
      ['POST', `/v1/chat/sessions/${session_id}/messages`, { body: 'hi' }],
      ['POST', `/v1/chat/sessions/${session_id}/read`, { up_to_message_id: message_id }],
      ['GET', streamPath(session_id)],
    ];
    for (const [method, path, body] of endpoints) {
      const options = body === undefined ? {} : { body };
      expectRefusal(await t.request(method, path, options), 401, /Authentication required/);
      expectRefusal(await t.request(method, path, { ...options, token: `svc_sk_${'0'.repeat(64)}` }), 401, /Invalid API key/);
      expectRefusal(await t.request(method, path, { ...options, headers: { authorization: 'Basic abc' } }), 401);
      expectRefusal(await t.request(method, path, { ...options, token: alpha.api_key }), 403, /not bound to an identity/);
    }
    // Nothing was sent by the refused requests.
    expect(expectOk(await history(b, session_id)).messages).toHaveLength(1);
  });
});

describe('POST /v1/chat/sessions', () => {
  it('creates a two-party session with a signed message and reuses it for the same pair', async () => {
    const [a, b] = await people();
    const created = await chat(a, b, 'first');
    expect(created).toEqual({
      session_id: expect.any(String),
      message_id: expect.any(String),
      participants: [
        { agent_id: a.agent_id, alias: a.alias, address: null, did: a.did_key },
        { agent_id: b.agent_id, alias: b.alias, address: null, did: b.did_key },
      ],
      sse_url: `/v1/chat/sessions/${created.session_id}/stream`,
      targets_connected: [],
      targets_left: [],
    });

    // The same pair, addressed another way or from the other side: the same session.
    const byDid = expectOk(await create(a, { to_dids: [b.did_key], message: 'second' }));
    const reverse = expectOk(await create(b, { to_aliases: [a.alias], message: 'third' }));
    expect(byDid.session_id).toBe(created.session_id);
    expect(reverse.session_id).toBe(created.session_id);
    expect(new Set([created.message_id, byDid.message_id, reverse.message_id]).size).toBe(3);

    const messages = expectOk(await history(b, created.session_id)).messages;
    expect(messages.map((m: { body: string }) => m.body)).toEqual(['first', 'second', 'third']);
    const [first, second, third] = messages;
    expect(first).toEqual({
      message_id: created.message_id,
      session_id: created.session_id,
      from_agent_id: a.agent_id,
      from_alias: a.alias,
      from_address: null,
      from_did: a.did_key,
      from_stable_id: null,
      to: b.alias,
      to_did: b.did_key,
      body: 'first',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      sender_leaving: false,
      sender_rejoining: false,
      hang_on: false,
      extends_wait_seconds: 0,
      reply_to: null,
      wait_seconds: null,
      signature: expect.any(String),
      signed_payload: expect.any(String),
      signature_status: 'verified',
      // Both hold their keys on the node: the message is sealed end to end, and read as the node opened it.
      end_to_end: true,
      content_mode: 'server_readable_hosted',
      message_version: 2,
      // An ephemeral sender has no address, so there is no namespace to vouch for.
      from_namespace_trust: null,
      // Upstream's fields, which its clients read.
      from_agent: a.alias,
      to_address: b.alias,
      to_stable_id: null,
      signing_key_id: a.did_key,
      is_contact: false,
      rotation_announcement: null,
      replacement_announcement: null,
    });
    for (const m of messages) expectSigned(m);
    expect(signedFields(first)).toEqual({
      body: 'first',
      from: a.alias,
      from_did: a.did_key,
      message_id: created.message_id,
      subject: '',
      timestamp: first.timestamp,
      to: b.alias,
      to_did: b.did_key,
      type: 'chat',
    });
    // `to` is the target as addressed.
    expect(signedFields(second)).toMatchObject({ to: b.did_key, to_did: b.did_key });
    expect(signedFields(third)).toMatchObject({ from: b.alias, to: a.alias, to_did: a.did_key });
  });

  it('signs from and to with addresses and stable ids for persistent identities', async () => {
    const dora = await createIdentity(t, alpha.api_key, persistent('dora'));
    const [a] = await people();
    const created = expectOk(await create(a, { to_addresses: [`${DOMAIN}/dora`], message: 'to an address' }));
    expect(created.participants).toContainEqual({ agent_id: dora.agent_id, alias: 'dora', address: `${DOMAIN}/dora`, did: dora.did_aw });
    const reply = expectOk(await send(dora, created.session_id, { body: 'from an address' }));
    const [toDora, fromDora] = expectOk(await history(a, created.session_id)).messages;
    expect(signedFields(toDora)).toMatchObject({ to: `${DOMAIN}/dora`, to_did: dora.did_key, to_stable_id: dora.did_aw });
    expect(fromDora).toMatchObject({ message_id: reply.message_id, from_address: `${DOMAIN}/dora`, from_stable_id: dora.did_aw, to: a.alias });
    expect(signedFields(fromDora)).toMatchObject({ from: `${DOMAIN}/dora`, from_stable_id: dora.did_aw, to: a.alias, to_did: a.did_key });
    expectSigned(toDora);
    expectSigned(fromDora);
    // The session list shows the address and the did:svc of the persistent participant.
    const listed = (await sessions(a)).find((s: { session_id: string }) => s.session_id === created.session_id);
    expect(listed).toMatchObject({ participants: ['dora'], participant_addresses: [`${DOMAIN}/dora`], participant_dids: [dora.did_aw] });
  });

  it('creates a new session for each group send, signed to the sorted targets with an empty to_did', async () => {
    const [a, b, c] = await people();
    const group = expectOk(await create(a, { to_aliases: [c.alias, b.alias], message: 'to both' }));
    expect(group.participants.map((p: { alias: string }) => p.alias).sort()).toEqual([a.alias, b.alias, c.alias].sort());
    const again = expectOk(await create(a, { to_aliases: [b.alias, c.alias], message: 'another group' }));
    expect(again.session_id).not.toBe(group.session_id);
    const pair = await chat(a, b);
    expect(pair.session_id).not.toBe(group.session_id);

    const [m] = expectOk(await history(c, group.session_id)).messages;
    expect(signedFields(m)).toMatchObject({ to: [b.alias, c.alias].sort().join(','), to_did: '' });
    expect(signedFields(m)).not.toHaveProperty('to_stable_id');
    expectSigned(m);

    // A reply in the group goes to everyone else.
    expectOk(await send(c, group.session_id, { body: 'reply all' }));
    const replyAll = expectOk(await history(b, group.session_id)).messages[1];
    expect(signedFields(replyAll)).toMatchObject({ from: c.alias, to: [a.alias, b.alias].sort().join(','), to_did: '' });
    expect(expectOk(await history(a, group.session_id, '?unread_only=true')).messages).toHaveLength(1);
  });

  it('shows agent ids only for participants of the caller’s own project', async () => {
    const [a] = await people();
    const [outsider] = await people(() => beta);
    const created = expectOk(await create(a, { to_dids: [outsider.did_key], message: 'across projects' }));
    expect(created.participants).toEqual([
      { agent_id: a.agent_id, alias: a.alias, address: null, did: a.did_key },
      { agent_id: null, alias: outsider.alias, address: null, did: outsider.did_key },
    ]);
    const [m] = expectOk(await history(outsider, created.session_id)).messages;
    expect(m).toMatchObject({ from_agent_id: null, from_alias: a.alias });
    expect(expectOk(await history(a, created.session_id)).messages[0].from_agent_id).toBe(a.agent_id);
  });

  it('refuses unknown recipients (404), yourself and duplicate targets (422), and sends nothing', async () => {
    const [a, b] = await people();
    expectRefusal(await create(a, { to_aliases: ['nobody-here'], message: 'x' }), 404, /no identity with alias nobody-here/, 'SVC_ERR_RECIPIENT_NOT_FOUND');
    expectRefusal(await create(a, { to_addresses: [`${DOMAIN}/nobody`], message: 'x' }), 404, /Recipient address not found/, 'SVC_ERR_RECIPIENT_NOT_FOUND');
    expectRefusal(await create(a, { to_dids: [testKey().didKey], message: 'x' }), 404, /not an identity on this node/, 'SVC_ERR_RECIPIENT_NOT_FOUND');
    expectRefusal(await create(a, { to_dids: ['did:web:example.com'], message: 'x' }), 422, undefined, 'SVC_ERR_DID_MALFORMED');
    // Chat across nodes needs a sender address (test/api/federation.test.ts); these have none.
    expectRefusal(await create(a, { to_addresses: ['elsewhere.example/bob'], message: 'x' }), 422, /another node.*address/, 'SVC_ERR_SENDER_ADDRESS_REQUIRED');
    // An alias resolves in the caller's project only.
    const [outsider] = await people(() => beta);
    expectRefusal(await create(a, { to_aliases: [outsider.alias], message: 'x' }), 404);
    // One bad target refuses the whole send.
    expectRefusal(await create(a, { to_aliases: [b.alias, 'nobody-here'], message: 'x' }), 404);

    expectRefusal(await create(a, { to_aliases: [a.alias], message: 'x' }), 422, /is you/, 'SVC_ERR_CHAT_WITH_SELF');
    expectRefusal(await create(a, { to_dids: [a.did_key], message: 'x' }), 422, /is you/, 'SVC_ERR_CHAT_WITH_SELF');
    expectValidation(await create(a, { to_aliases: [b.alias, b.alias], message: 'x' }), 'to_aliases');
    expectValidation(await create(a, { to_dids: [b.did_key, b.did_key], message: 'x' }), 'to_dids');
    expectRefusal(await create(a, { to_aliases: [b.alias], to_dids: [b.did_key], message: 'x' }), 422, /same recipient/, 'SVC_ERR_RECIPIENT_DUPLICATE');

    expect(await sessions(a)).toEqual([]);
    expect(await sessions(b)).toEqual([]);
  });

  it('refuses invalid bodies (422) and a message over 64 KiB (413)', async () => {
    const [a, b] = await people();
    const to = { to_aliases: [b.alias] };
    expectValidation(await create(a, { message: 'no target' }), 'to_aliases');
    expectValidation(await create(a, { to_aliases: [], to_dids: [], to_addresses: [], message: 'x' }), 'to_aliases');
    expectValidation(await create(a, { ...to }), 'message');
    expectValidation(await create(a, { ...to, message: '' }), 'message');
    expectValidation(await create(a, { ...to, message: 'x', subject: 'mail field' }), 'subject');
    expectValidation(await create(a, { ...to, message: 'x', wait_seconds: 3601 }), 'wait_seconds');
    expectValidation(await create(a, { ...to, message: 'x', wait_seconds: -1 }), 'wait_seconds');
    expectValidation(await create(a, { ...to, message: 'x', wait_seconds: 1.5 }), 'wait_seconds');
    expectValidation(await create(a, { ...to, message: 'x', leaving: 'yes' }), 'leaving');
    expectValidation(await create(a, { ...to, message: 'x', reply_to: 'not-a-uuid' }), 'reply_to');
    expectValidation(await create(a, { to_aliases: ['bad alias'], message: 'x' }), 'to_aliases');
    expectRefusal(await create(a, [to]), 422);
    expectRefusal(await create(a, { ...to, message: 'x'.repeat(64 * 1024 + 1) }), 413, /64 KiB/, 'SVC_ERR_MESSAGE_TOO_LARGE');
    expectRefusal(await create(a, { ...to, message: 'é'.repeat(32 * 1024 + 1) }), 413, undefined, 'SVC_ERR_MESSAGE_TOO_LARGE');
    // reply_to must name a message of the session: a new session has none.
    expectRefusal(await create(a, { ...to, message: 'x', reply_to: randomUUID() }), 404, /reply_to/, 'SVC_ERR_REPLY_TO_NOT_FOUND');
    expect(await sessions(a)).toEqual([]);

    const exact = expectOk(await create(a, { ...to, message: 'x'.repeat(64 * 1024) }));
    expect(expectOk(await history(b, exact.session_id)).messages[0].body).toHaveLength(64 * 1024);
  });

  it('counts the limit in UTF-8 bytes, the 64 KiB the UI says before sending', async () => {
    // renderer/src/lib/chat.ts pins the same number (its test says so): change both together.
    expect(MAX_CHAT_MESSAGE_BYTES).toBe(64 * 1024);
    const [a, b] = await people();
    const under = '€'.repeat(Math.floor(MAX_CHAT_MESSAGE_BYTES / 3)); // 65,535 bytes
    expectOk(await create(a, { to_aliases: [b.alias], message: under }));
    expectRefusal(await create(a, { to_aliases: [b.alias], message: `${under}€€` }), 413, /64 KiB/);
  });

  it('refuses a contacts-only recipient from another project (403) until it has spoken in the session', async () => {
    const vault = await createIdentity(t, alpha.api_key, persistent('vault', { address_reachability: 'contacts-only' }));
    const [outsider, stranger] = await people(() => beta);
    const [colleague] = await people();

    expectRefusal(
      await create(outsider, { to_addresses: [`${DOMAIN}/vault`], message: 'let me in' }),
      403,
      /only accepts messages from contacts/,
      'SVC_ERR_RECIPIENT_CONTACTS_ONLY',
    );
    expectRefusal(
      await create(outsider, { to_dids: [vault.did_aw], message: 'let me in' }),
      403,
      /only accepts messages from contacts/,
      'SVC_ERR_RECIPIENT_CONTACTS_ONLY',
    );
    // The same project is always allowed.
    expectOk(await create(colleague, { to_aliases: ['vault'], message: 'hi from the project' }));

    // The contacts-only identity starts a conversation: the other side may answer in it.
    const started = expectOk(await create(vault, { to_dids: [outsider.did_key], message: 'I reach out' }));
    expectOk(await send(outsider, started.session_id, { body: 'answer in the session' }));
    expect(expectOk(await create(outsider, { to_addresses: [`${DOMAIN}/vault`], message: 'and again' })).session_id).toBe(started.session_id);
    // Someone else still cannot, until the contacts list names them.
    expectRefusal(await create(stranger, { to_addresses: [`${DOMAIN}/vault`], message: 'me too' }), 403);
    expectOk(await t.request('POST', '/v1/contacts', { token: vault.api_key, body: { contact_address: stranger.did_key } }));
    expectOk(await create(stranger, { to_addresses: [`${DOMAIN}/vault`], message: 'me too' }));

    // In a group someone else started, the contacts-only member is protected until it speaks there.
    const group = expectOk(await create(colleague, { to_aliases: ['vault'], to_dids: [outsider.did_key], message: 'meet each other' }));
    expectRefusal(
      await send(outsider, group.session_id, { body: 'hello vault' }),
      403,
      /only accepts messages from contacts/,
      'SVC_ERR_RECIPIENT_CONTACTS_ONLY',
    );
    expectOk(await send(vault, group.session_id, { body: 'hello all' }));
    expectOk(await send(outsider, group.session_id, { body: 'hello vault' }));
  });
});

describe('POST /v1/chat/sessions/{id}/messages', () => {
  it('sends in the session, with reply_to and hang_on', async () => {
    const [a, b] = await people();
    const { session_id, message_id } = await chat(a, b, 'question');
    const answer = expectOk(await send(b, session_id, { body: 'answer', reply_to: message_id }));
    expect(answer).toEqual({ message_id: expect.any(String), session_id, delivered: true, extends_wait_seconds: 0 });
    const hold = expectOk(await send(b, session_id, { body: 'one moment', hang_on: true }));
    expect(hold.extends_wait_seconds).toBe(300);
    const bye = expectOk(await send(a, session_id, { body: 'bye', leaving: true }));

    const messages = expectOk(await history(a, session_id)).messages;
    expect(messages.map((m: { message_id: string }) => m.message_id)).toEqual([message_id, answer.message_id, hold.message_id, bye.message_id]);
    expect(messages[1]).toMatchObject({ reply_to: message_id, from_alias: b.alias, to: a.alias });
    expect(signedFields(messages[1])).toMatchObject({ reply_to: message_id });
    expect(messages[2]).toMatchObject({ hang_on: true, extends_wait_seconds: 300 });
    expect(signedFields(messages[2])).toMatchObject({ hang_on: true });
    expect(messages[3]).toMatchObject({ sender_leaving: true });
    expect(signedFields(messages[3])).toMatchObject({ sender_leaving: true });
    // Presence rules: false flags are not signed.
    expect(signedFields(messages[1])).not.toHaveProperty('hang_on');
    expect(signedFields(messages[1])).not.toHaveProperty('sender_leaving');
    for (const m of messages) expectSigned(m);
  });

  it('refuses a non-participant and an unknown session (404), a foreign reply_to (404), bad bodies (422/413)', async () => {
    const [a, b, outsider] = await people();
    const { session_id } = await chat(a, b);
    const other = await chat(a, outsider);
    expectRefusal(await send(outsider, session_id, { body: 'let me in' }), 404, /^Session not found$/, 'SVC_ERR_CHAT_SESSION_NOT_FOUND');
    expectRefusal(await send(a, randomUUID(), { body: 'x' }), 404, /^Session not found$/, 'SVC_ERR_CHAT_SESSION_NOT_FOUND');
    expectRefusal(await send(a, 'not-a-session', { body: 'x' }), 404, undefined, 'SVC_ERR_CHAT_SESSION_NOT_FOUND');
    expectRefusal(await send(a, session_id, { body: 'x', reply_to: other.message_id }), 404, /reply_to/, 'SVC_ERR_REPLY_TO_NOT_FOUND');
    expectRefusal(await send(a, session_id, { body: 'x', reply_to: randomUUID() }), 404, /reply_to/, 'SVC_ERR_REPLY_TO_NOT_FOUND');
    expectValidation(await send(a, session_id, { body: '' }), 'body');
    expectValidation(await send(a, session_id, { message: 'wrong field' }), 'message');
    expectValidation(await send(a, session_id, { body: 'x', hang_on: 1 }), 'hang_on');
    expectRefusal(await send(a, session_id, { body: 'x'.repeat(64 * 1024 + 1) }), 413, undefined, 'SVC_ERR_MESSAGE_TOO_LARGE');
    expect(expectOk(await history(a, session_id)).messages).toHaveLength(1);
  });
});

describe('GET /v1/chat/sessions and /v1/chat/sessions/{id}/messages', () => {
  it('lists the caller’s sessions, most recent first, with the other participants and unread counts', async () => {
    const [a, b, c] = await people();
    const ab = await chat(a, b, 'to b');
    const ac = await chat(a, c, 'to c');
    expectOk(await send(b, ab.session_id, { body: 'from b 1' }));
    expectOk(await send(b, ab.session_id, { body: 'from b 2' }));

    const list = await sessions(a);
    expect(list).toEqual([
      {
        session_id: ab.session_id,
        participants: [b.alias],
        participant_addresses: [b.alias],
        participant_dids: [b.did_key],
        created_at: expect.any(String),
        last_activity: expect.any(String),
        sender_waiting: false,
        unread_count: 2,
        last_message: {
          message_id: expect.any(String),
          from_agent_id: b.agent_id,
          from_alias: b.alias,
          from_address: null,
          preview: 'from b 2',
          end_to_end: true,
          created_at: list[0].last_activity,
          sender_leaving: false,
          sender_rejoining: false,
        },
        participants_left: [],
        you_left: false,
      },
      expect.objectContaining({ session_id: ac.session_id, participants: [c.alias], unread_count: 0 }),
    ]);
    expect(list[0].last_activity > list[1].last_activity).toBe(true);
    expect((await sessions(b)).map((s: { session_id: string }) => s.session_id)).toEqual([ab.session_id]);
    expect((await sessions(c))[0]).toMatchObject({ session_id: ac.session_id, unread_count: 1, participants: [a.alias] });

    // A participant with the session's stream open is waiting, until it leaves the chat.
    await stream(b, ab.session_id);
    expect((await sessions(a))[0].sender_waiting).toBe(true);
    expectOk(await send(b, ab.session_id, { body: 'bye', leaving: true }));
    expect((await sessions(a))[0].sender_waiting).toBe(false);
  });

  it('returns history oldest first, with limit, unread_only and message_id; 404 for a non-participant', async () => {
    const [a, b, outsider] = await people();
    const { session_id, message_id: first } = await chat(a, b, 'm1');
    for (const body of ['m2', 'm3', 'm4', 'm5']) expectOk(await send(a, session_id, { body }));
    const bodies = async (query: string) => expectOk(await history(b, session_id, query)).messages.map((m: { body: string }) => m.body);
    expect(await bodies('')).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(await bodies('?limit=2')).toEqual(['m4', 'm5']);
    expect(await bodies(`?message_id=${first}`)).toEqual(['m1']);
    expect(await bodies(`?message_id=${randomUUID()}`)).toEqual([]);
    const all = expectOk(await history(b, session_id)).messages;
    expect(expectOk(await read(b, session_id, all[2].message_id))).toEqual({ success: true, messages_marked: 3 });
    expect(await bodies('?unread_only=true')).toEqual(['m4', 'm5']);
    expect(await bodies('?unread_only=true&limit=1')).toEqual(['m5']);
    expect(await bodies('?unread_only=false')).toHaveLength(5);
    // The sender's own messages are never unread for it.
    expect(expectOk(await history(a, session_id, '?unread_only=true')).messages).toEqual([]);

    expectRefusal(await history(outsider, session_id), 404, /^Session not found$/, 'SVC_ERR_CHAT_SESSION_NOT_FOUND');
    expectRefusal(await history(a, randomUUID()), 404, /^Session not found$/);
    expectValidation(await history(b, session_id, '?limit=0'), 'limit');
    expectValidation(await history(b, session_id, '?limit=2001'), 'limit');
    expectValidation(await history(b, session_id, '?limit=ten'), 'limit');
    expectValidation(await history(b, session_id, '?unread_only=maybe'), 'unread_only');
    expectValidation(await history(b, session_id, '?message_id=nope'), 'message_id');
    expect(await bodies('?limit=2000')).toHaveLength(5);
  });
});

describe('POST /v1/chat/sessions/{id}/read', () => {
  it('moves a monotonic watermark and counts only newly read messages from others', async () => {
    const [a, b] = await people();
    const { session_id, message_id: m1 } = await chat(a, b, 'm1');
    const m2 = expectOk(await send(a, session_id, { body: 'm2' })).message_id;
    const m3 = expectOk(await send(a, session_id, { body: 'm3' })).message_id;

    expect(expectOk(await read(b, session_id, m2))).toEqual({ success: true, messages_marked: 2 });
    // An older message never moves the watermark back.
    expect(expectOk(await read(b, session_id, m1))).toEqual({ success: true, messages_marked: 0 });
    expect(expectOk(await history(b, session_id, '?unread_only=true')).messages.map((m: { message_id: string }) => m.message_id)).toEqual([m3]);
    expect((await sessions(b))[0].unread_count).toBe(1);
    expect(expectOk(await read(b, session_id, m3))).toEqual({ success: true, messages_marked: 1 });
    expect(expectOk(await read(b, session_id, m3))).toEqual({ success: true, messages_marked: 0 });
    expect((await sessions(b))[0].unread_count).toBe(0);

    // Reading up to one's own message marks nothing; a later reply from the other side counts.
    expect(expectOk(await read(a, session_id, m3))).toEqual({ success: true, messages_marked: 0 });
    const m4 = expectOk(await send(b, session_id, { body: 'm4' })).message_id;
    expect(expectOk(await read(a, session_id, m4))).toEqual({ success: true, messages_marked: 1 });
  });

  it('refuses a message outside the session (404), a non-participant (404), a malformed id (422)', async () => {
    const [a, b, outsider] = await people();
    const { session_id, message_id } = await chat(a, b);
    const other = await chat(a, outsider);
    expectRefusal(await read(b, session_id, randomUUID()), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await read(a, session_id, other.message_id), 404, /Message not found/, 'SVC_ERR_MESSAGE_NOT_FOUND');
    expectRefusal(await read(outsider, session_id, message_id), 404, /^Session not found$/, 'SVC_ERR_CHAT_SESSION_NOT_FOUND');
    expectValidation(await read(b, session_id, 'not-a-uuid'), 'up_to_message_id');
    expectValidation(await t.request('POST', `/v1/chat/sessions/${session_id}/read`, { token: b.api_key, body: {} }), 'up_to_message_id');
    expect((await sessions(b))[0].unread_count).toBe(1);
  });
});

describe('GET /v1/chat/pending and send-and-wait', () => {
  it('lists sessions with unread messages, with the last message and the unread mail count', async () => {
    const [a, b] = await people();
    const { session_id } = await chat(a, b, 'first');
    const last = expectOk(await send(a, session_id, { body: 'latest' }));
    const { pending: items, messages_waiting } = await pending(b);
    expect(messages_waiting).toBe(0);
    expect(items).toEqual([
      {
        session_id,
        participants: [a.alias],
        participant_addresses: [a.alias],
        participant_dids: [a.did_key],
        last_message: 'latest',
        last_message_id: last.message_id,
        last_from: a.alias,
        last_from_address: a.alias,
        last_from_did: a.did_key,
        last_from_stable_id: null,
        unread_count: 2,
        last_activity: expect.any(String),
        sender_waiting: false,
        time_remaining_seconds: 0,
        last_message_content_mode: 'server_readable_hosted',
        last_message_version: 2,
      },
    ]);
    // The sender has nothing pending; once read, neither has the recipient.
    expect((await pending(a)).pending).toEqual([]);
    expectOk(await read(b, session_id, last.message_id));
    expect((await pending(b)).pending).toEqual([]);

    // messages_waiting counts the caller's unread mail.
    const mail = expectOk(await t.request('POST', '/v1/messages', { token: a.api_key, body: { to_alias: b.alias, subject: 's', body: 'mail' } }));
    expect(await pending(b)).toEqual({ pending: [], messages_waiting: 1 });
    expect((await pending(a)).messages_waiting).toBe(0);
    expectOk(await t.request('POST', `/v1/messages/${mail.message_id}/ack`, { token: b.api_key }));
    expect((await pending(b)).messages_waiting).toBe(0);
  });

  it('records the wait window, shows it while the waiter is connected, extends it with hang_on, closes it on leaving', async () => {
    const [waiter, target] = await people();
    const { session_id } = await chat(waiter, target, 'hello');

    // The target has the session open: a send-and-wait reports it connected.
    const targetStream = await stream(target, session_id);
    const waiting = expectOk(await create(waiter, { to_aliases: [target.alias], message: 'are you there?', wait_seconds: 120 }));
    expect(waiting).toMatchObject({ session_id, targets_connected: [target.alias], targets_left: [] });
    const asked = expectOk(await history(target, session_id, `?message_id=${waiting.message_id}`)).messages[0];
    expect(asked.wait_seconds).toBe(120);
    expect(signedFields(asked)).toMatchObject({ wait_seconds: 120 });
    expectSigned(asked);
    targetStream.close();
    await until(async () => (await chat(waiter, target, 'ping')).targets_connected.length === 0);

    // Everything read and the waiter not connected: nothing pending.
    const all = expectOk(await history(target, session_id)).messages;
    expectOk(await read(target, session_id, all.at(-1).message_id));
    expect((await pending(target)).pending).toEqual([]);

    // A fresh wait window with the waiter connected: pending although nothing is unread.
    const again = expectOk(await create(waiter, { to_aliases: [target.alias], message: 'waiting now', wait_seconds: 120 }));
    expectOk(await read(target, session_id, again.message_id));
    const waiterStream = await stream(waiter, session_id);
    let item = (await pending(target)).pending[0];
    expect(item).toMatchObject({ session_id, unread_count: 0, sender_waiting: true, last_message: 'waiting now' });
    expect(item.time_remaining_seconds).toBeGreaterThan(100);
    expect(item.time_remaining_seconds).toBeLessThanOrEqual(120);
    // The waiter itself is not "waited on".
    expect((await pending(waiter)).pending).toEqual([]);

    // hang_on from the target extends the window by 300 s.
    expect(expectOk(await send(target, session_id, { body: 'working on it', hang_on: true })).extends_wait_seconds).toBe(300);
    item = (await pending(target)).pending[0];
    expect(item.time_remaining_seconds).toBeGreaterThan(400);
    expect(item.time_remaining_seconds).toBeLessThanOrEqual(420);

    // The waiter disconnects: the window no longer makes the session pending.
    waiterStream.close();
    await until(async () => (await pending(target)).pending.length === 0);

    // Reconnected, then leaving: the window closes.
    await stream(waiter, session_id);
    expect((await pending(target)).pending).toHaveLength(1);
    const bye = expectOk(await send(waiter, session_id, { body: 'never mind', leaving: true }));
    expectOk(await read(target, session_id, bye.message_id));
    expect((await pending(target)).pending).toEqual([]);
  });

  it('reports targets whose last message said they were leaving', async () => {
    const [a, b, c] = await people();
    const { session_id } = await chat(a, b);
    expectOk(await send(b, session_id, { body: 'gone for today', leaving: true }));
    expect(expectOk(await create(a, { to_aliases: [b.alias], message: 'still there?', wait_seconds: 60 })).targets_left).toEqual([b.alias]);
    expectOk(await send(b, session_id, { body: 'back' }));
    expect(expectOk(await create(a, { to_aliases: [b.alias], message: 'welcome back' })).targets_left).toEqual([]);
    // Leaving via create-or-send counts too.
    expectOk(await create(c, { to_aliases: [a.alias], message: 'leaving note', leaving: true }));
    expect(expectOk(await create(a, { to_aliases: [c.alias], message: 'ok' })).targets_left).toEqual([c.alias]);
  });
});

describe('read positions and membership after a reload (ours)', () => {
  const members = async (who: Who, sessionId: string) => expectOk(await history(who, sessionId)).participants;

  it('history carries how far each participant has read, so read receipts survive a reload', async () => {
    const [a, b] = await people();
    const { session_id, message_id: m1 } = await chat(a, b, 'one');
    const m2 = expectOk(await send(a, session_id, { body: 'two' })).message_id;
    expect(await members(a, session_id)).toEqual([
      { agent_id: a.agent_id, alias: a.alias, address: null, did: a.did_key, last_read_message_id: null, read_at: null, left_at: null },
      { agent_id: b.agent_id, alias: b.alias, address: null, did: b.did_key, last_read_message_id: null, read_at: null, left_at: null },
    ]);

    expectOk(await read(b, session_id, m1));
    const [, reader] = await members(a, session_id);
    expect(reader).toMatchObject({ alias: b.alias, last_read_message_id: m1, read_at: expect.stringMatching(/Z$/) });
    // Monotonic, and the same for every participant asking (the reader itself included).
    expectOk(await read(b, session_id, m2));
    expectOk(await read(b, session_id, m1));
    expect((await members(a, session_id))[1].last_read_message_id).toBe(m2);
    expect((await members(b, session_id))[1].last_read_message_id).toBe(m2);
    // Only within the caller's own project do agent ids show, as everywhere in chat.
    const outsider = (await people(() => beta))[0];
    const cross = expectOk(await create(outsider, { to_dids: [a.did_key], message: 'hi' })).session_id;
    expect((await members(outsider, cross)).map((m: { agent_id: string | null }) => m.agent_id)).toEqual([outsider.agent_id, null]);
  });

  it('leaving is shown in the list and in history until an explicit rejoin, which is refused when there is nothing to rejoin', async () => {
    const [a, b] = await people();
    const { session_id } = await chat(a, b, 'hello');
    const bye = expectOk(await send(b, session_id, { body: 'Left the chat.', leaving: true }));
    const left = expectOk(await history(a, session_id));
    const leaving = left.messages.find((m: { message_id: string }) => m.message_id === bye.message_id);
    expect(leaving).toMatchObject({ sender_leaving: true, sender_rejoining: false });
    expect(left.participants[1]).toMatchObject({ alias: b.alias, left_at: leaving.created_at });
    expect((await sessions(a))[0]).toMatchObject({ participants_left: [b.alias], you_left: false, last_message: { sender_leaving: true } });
    expect((await sessions(b))[0]).toMatchObject({ participants_left: [], you_left: true });
    expect((await chat(a, b, 'still there?')).targets_left).toEqual([b.alias]);

    // Rejoining says so on the message (outside the signed envelope, which upstream defines).
    const back = expectOk(await send(b, session_id, { body: 'Rejoined the chat.', rejoining: true }));
    const rejoin = expectOk(await history(a, session_id, `?message_id=${back.message_id}`)).messages[0];
    expect(rejoin).toMatchObject({ sender_leaving: false, sender_rejoining: true, signature_status: 'verified' });
    expect(signedFields(rejoin)).not.toHaveProperty('sender_rejoining');
    expect((await members(a, session_id))[1].left_at).toBeNull();
    expect((await sessions(b))[0]).toMatchObject({ you_left: false, last_message: { sender_rejoining: true } });
    expect((await sessions(a))[0].participants_left).toEqual([]);

    // Nothing to rejoin (409), and no message that both leaves and rejoins (422): nothing is stored.
    const count = async () => expectOk(await history(a, session_id)).messages.length;
    const before = await count();
    expectRefusal(await send(b, session_id, { body: 'again', rejoining: true }), 409, /nothing to rejoin/, 'SVC_ERR_CHAT_NOT_LEFT');
    expectValidation(await send(b, session_id, { body: 'both', leaving: true, rejoining: true }), 'rejoining');
    expectValidation(await send(b, session_id, { body: 'x', rejoining: 'yes' }), 'rejoining');
    expect(await count()).toBe(before);

    // Upstream clients rejoin by simply writing again: that still works, and clears the mark too.
    expectOk(await send(a, session_id, { body: 'bye', leaving: true }));
    expect((await sessions(a))[0].you_left).toBe(true);
    expectOk(await send(a, session_id, { body: 'actually, one more thing' }));
    expect((await sessions(a))[0].you_left).toBe(false);
    expect((await sessions(b))[0].participants_left).toEqual([]);
  });
});

describe('GET /v1/chat/sessions paged (ours)', () => {
  const page = async (who: Who, query: string) => expectOk(await t.request('GET', `/v1/chat/sessions?${query}`, { token: who.api_key }));
  const ids = (p: { sessions: { session_id: string }[] }) => p.sessions.map((s) => s.session_id);

  it('pages newest first with limit and before, and a session that moves does not shift the pages', async () => {
    const [me] = await people();
    const others = [...(await people()), ...(await people())];
    const started: string[] = [];
    for (const other of others) started.push((await chat(me, other, `to ${other.alias}`)).session_id);
    const newestFirst = [...started].reverse();

    // Without limit: everything, as upstream; the paging fields say there is no more.
    const whole = await page(me, '');
    expect(ids(whole)).toEqual(newestFirst);
    expect(whole).toMatchObject({ has_more: false, next_before: null });

    const first = await page(me, 'limit=2');
    expect(ids(first)).toEqual(newestFirst.slice(0, 2));
    expect(first.has_more).toBe(true);
    expect(first.next_before).toBe(first.sessions[1].last_message.message_id);

    // The oldest session gets a message: it moves to the top, yet the next page goes on from where
    // the first one ended, and the moved session is not shown twice.
    expectOk(await send(others[0] as Who, started[0] as string, { body: 'news' }));
    const second = await page(me, `limit=2&before=${first.next_before}`);
    expect(ids(second)).toEqual(newestFirst.slice(2, 4));
    const third = await page(me, `limit=2&before=${second.next_before}`);
    expect(ids(third)).toEqual([newestFirst[4]]);
    expect(third).toMatchObject({ has_more: false, next_before: null });
    expect(ids(await page(me, 'limit=500'))[0]).toBe(started[0]);
  });

  it('refuses a bad limit and a cursor outside the caller’s chats (422)', async () => {
    const [a, b, c] = await people();
    await chat(a, b);
    const foreign = await chat(b, c);
    for (const query of ['limit=0', 'limit=501', 'limit=two'])
      expectValidation(await t.request('GET', `/v1/chat/sessions?${query}`, { token: a.api_key }), 'limit');
    expectValidation(await t.request('GET', `/v1/chat/sessions?limit=5&before=${randomUUID()}`, { token: a.api_key }), 'before');
    expectValidation(await t.request('GET', `/v1/chat/sessions?limit=5&before=${foreign.message_id}`, { token: a.api_key }), 'before');
  });
});

describe('GET /v1/chat/sessions/{id}/stream', () => {
  it('pushes message frames the moment they are sent, signed and well under 1 s', async () => {
    const [a, b] = await people();
    const { session_id } = await chat(a, b, 'before the stream');
    const s = await stream(b, session_id);

    for (const [sender, body] of [
      [a, 'one'],
      [b, 'two'],
      [a, 'three'],
    ] as const) {
      const started = performance.now();
      const sent = expectOk(await send(sender, session_id, { body, hang_on: body === 'two' }));
      const frame = await nextOf(s, 'message');
      expect(frame.receivedAt - started).toBeLessThan(400);
      expect(frame.data).toEqual({
        type: 'message',
        session_id,
        message_id: sent.message_id,
        from_agent_id: sender.agent_id,
        from_alias: sender.alias,
        from_address: null,
        from_did: sender.did_key,
        from_stable_id: null,
        to: sender === a ? b.alias : a.alias,
        to_did: sender === a ? b.did_key : a.did_key,
        body,
        timestamp: expect.any(String),
        created_at: expect.any(String),
        sender_leaving: false,
        sender_rejoining: false,
        hang_on: body === 'two',
        extends_wait_seconds: body === 'two' ? 300 : 0,
        reply_to: null,
        wait_seconds: null,
        signature: expect.any(String),
        signed_payload: expect.any(String),
        signature_status: 'verified',
        end_to_end: true,
        content_mode: 'server_readable_hosted',
        message_version: 2,
        from_namespace_trust: null,
        from_agent: sender.alias,
        to_address: sender === a ? b.alias : a.alias,
        to_stable_id: null,
        signing_key_id: sender.did_key,
        is_contact: false,
        rotation_announcement: null,
        replacement_announcement: null,
        // Upstream's: b has this stream open, so b waits for an answer to what it sends.
        sender_waiting: sender === b,
      });
      expectSigned(frame.data);
    }
    // A create-or-send into the session arrives too; nothing from before the stream was replayed.
    const created = expectOk(await create(a, { to_aliases: [b.alias], message: 'via create', wait_seconds: 30 }));
    expect((await nextOf(s, 'message')).data).toMatchObject({ message_id: created.message_id, wait_seconds: 30 });
    expect(s.frames.map((f) => f.data.body)).toEqual(['one', 'two', 'three', 'via create']);
  });

  it('frames events as `id:`, `event: <name>` and one-line JSON `data:`, after `retry:` and a keepalive comment', async () => {
    const [a, b] = await people();
    const { session_id } = await chat(a, b, 'framed');
    const query = `deadline=${encodeURIComponent(inSeconds(30))}&after=${encodeURIComponent(inSeconds(-60))}`;
    const response = await fetch(`${t.url}${streamPath(session_id, query)}`, { headers: { authorization: `Bearer ${b.api_key}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!/"body":"framed"[^\n]*\n\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    await reader.cancel();
    expect(text.startsWith('retry: 1000\n\n: keepalive\n\n')).toBe(true);
    expect(text).toMatch(/\n\nid: cs1\.[\w-]+\nevent: message\ndata: \{"type":"message",[^\n]*"body":"framed"[^\n]*\}\n\n$/);
  });

  it('pushes read receipts of the other participants only', async () => {
    const [a, b] = await people();
    const { session_id, message_id } = await chat(a, b, 'read me');
    const s = await stream(a, session_id);
    const started = performance.now();
    expectOk(await read(b, session_id, message_id));
    const receipt = await nextOf(s, 'read_receipt');
    expect(receipt.receivedAt - started).toBeLessThan(400);
    expect(receipt.data).toEqual({
      type: 'read_receipt',
      session_id,
      reader_alias: b.alias,
      up_to_message_id: message_id,
      extends_wait_seconds: 300,
      timestamp: expect.any(String),
    });
    // Re-reading the same message moves nothing and sends no receipt; the viewer's own read neither.
    expectOk(await read(b, session_id, message_id));
    const reply = expectOk(await send(b, session_id, { body: 'reply' }));
    expect((await s.next(1000)).data).toMatchObject({ type: 'message', message_id: reply.message_id });
    expectOk(await read(a, session_id, reply.message_id));
    const next = expectOk(await send(b, session_id, { body: 'next' }));
    expect((await s.next(1000)).data).toMatchObject({ type: 'message', message_id: next.message_id });
    expect(s.frames.filter((f) => f.event === 'read_receipt')).toHaveLength(1);
  });

  it('replays messages stored after `after`, at most the latest 50', async () => {
    const [a, b] = await people();
    const { session_id } = await chat(a, b, 'm0');
    for (let i = 1; i <= 55; i++) expectOk(await send(i % 2 ? a : b, session_id, { body: `m${i}` }));
    const all = expectOk(await history(a, session_id)).messages;

    // Messages stored after m52's created_at (millisecond precision): m53 to m55.
    const after = all[52].created_at;
    const expected = all.filter((m: { created_at: string }) => m.created_at > after).map((m: { body: string }) => m.body);
    expect(expected.length).toBeGreaterThanOrEqual(2);
    const s = await stream(b, session_id, `deadline=${encodeURIComponent(inSeconds(30))}&after=${encodeURIComponent(after)}`);
    await until(() => s.frames.length >= expected.length);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(s.frames.map((f) => f.data.body)).toEqual(expected);
    expect(s.frames.map((f) => f.data.body)).not.toContain('m52');
    for (const f of s.frames) expectSigned(f.data);

    const before = new Date(Date.parse(all[0].created_at) - 1000).toISOString().replace('Z', '+00:00');
    const full = await stream(b, session_id, `deadline=${encodeURIComponent(inSeconds(30))}&after=${encodeURIComponent(before)}`);
    await until(() => full.frames.length >= 50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(full.frames.map((f) => f.data.body)).toEqual(all.slice(-50).map((m: { body: string }) => m.body));
    // Then live frames follow the replay.
    const live = expectOk(await send(a, session_id, { body: 'live' }));
    await until(() => full.frames.length === 51, 1000);
    expect(full.frames[50]?.data.message_id).toBe(live.message_id);
  });

  it('closes at the deadline and stops counting the viewer as connected', async () => {
    const [a, b] = await people();
    const { session_id } = await chat(a, b);
    const s = await stream(b, session_id, `deadline=${encodeURIComponent(inSeconds(1.5))}`);
    expect((await chat(a, b, 'still there?')).targets_connected).toEqual([b.alias]);
    const started = Date.now();
    await s.done;
    expect(Date.now() - started).toBeLessThan(3000);
    await until(async () => (await chat(a, b, 'gone?')).targets_connected.length === 0);
  });

  it('refuses a non-participant or unknown session (403) and a missing, malformed or past deadline (422)', async () => {
    const [a, b, outsider] = await people();
    const { session_id } = await chat(a, b);
    const get = (who: Who, path: string) => t.request('GET', path, { token: who.api_key });
    const refused = await get(outsider, streamPath(session_id));
    expectRefusal(refused, 403, undefined, 'SVC_ERR_CHAT_NOT_PARTICIPANT');
    expect(refused.body).toEqual({ detail: 'Not a participant in this session', code: 'SVC_ERR_CHAT_NOT_PARTICIPANT' });
    expectRefusal(await get(a, streamPath(randomUUID())), 403, /Not a participant/, 'SVC_ERR_CHAT_NOT_PARTICIPANT');
    expectValidation(await get(a, `/v1/chat/sessions/${session_id}/stream`), 'deadline');
    expectValidation(await get(a, streamPath(session_id, 'deadline=tomorrow')), 'deadline');
    expectValidation(await get(a, streamPath(session_id, `deadline=${encodeURIComponent(inSeconds(-10))}`)), 'deadline');
    expectValidation(await get(a, streamPath(session_id, 'deadline=2030-01-01T00:00:00')), 'deadline');
    expectValidation(await get(a, streamPath(session_id, `deadline=${encodeURIComponent(inSeconds(30))}&after=yesterday`)), 'after');
    // None of them counted as connected.
    expect((await chat(b, a, 'anyone?')).targets_connected).toEqual([]);
  });
});
