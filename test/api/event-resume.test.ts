/**
 * Event streams that resume, driven by a standard client, the `eventsource` package: every frame
 * carries an `id:`, and after a dropped connection the client's reconnect (`Last-Event-ID`, after
 * the `retry:` the node sent) gets what was written in between and nothing it saw; every stream
 * keeps alive with comments; at the caller's deadline the last frame is `deadline` and the
 * client's reconnect is answered 204, so it stops. The identity event stream, a chat session's
 * stream and the owner's feed alike, on a node whose stream timing is shortened.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamDeadline } from '../../contract/core/events.ts';
import { SendMailBody } from '../../contract/core/mail.ts';
import { FEED_REPLAY_LIMIT, feedIds } from '../../server/surfaces/core/events/node-feed.ts';
import { startCoreNode } from '../support/core-node.ts';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { fakeSseStream } from '../support/fake-sse.ts';
import { TestEventSource } from '../support/event-source.ts';
import { expectOk, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';

const KEEPALIVE_MS = 100;
const RETRY_MS = 100;
const DOMAIN = 'resume.test';
const IDENTITY_EVENTS = ['connected', 'mail_message', 'chat_message', 'control_pause', 'docs/doc.changed', 'error', 'deadline'];
const CHAT_EVENTS = ['message', 'read_receipt', 'error', 'deadline'];
const FEED_EVENTS = ['connected', 'mail_message', 'chat_message', 'error', 'deadline'];

let t: TestNode;
let project: Project;
let ann: any;
let counter = 0;

beforeAll(async () => {
  t = await startTestNode({ streams: { keepaliveMs: KEEPALIVE_MS, retryMs: RETRY_MS } });
  return () => t.stop();
});
beforeAll(async () => {
  await createNodeNamespace(t, DOMAIN);
  project = await createProject(t, 'resume', DOMAIN);
  ann = await createIdentity(t, project.api_key, persistent('ann'));
});

const sources: TestEventSource[] = [];
const raw: SseClient[] = [];
afterEach(() => {
  for (const source of sources.splice(0)) source.close();
  for (const stream of raw.splice(0)) stream.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const newIdentity = async (): Promise<any> => createIdentity(t, project.api_key, { alias: `rx${++counter}` });
const mail = async (to: { alias: string }, subject: string) =>
  expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_alias: to.alias, subject, body: `about ${subject}` } }));
const listen = (path: string, token: string, types: string[], deadline = deadlineIn(60)): TestEventSource => {
  const source = new TestEventSource(`${t.url}${path}${path.includes('?') ? '&' : '?'}deadline=${encodeURIComponent(deadline)}`, token, types);
  sources.push(source);
  return source;
};
/** The events received on the connection after the `index`-th successful one (0: the first). */
const connectionEvents = (source: TestEventSource, marker: string, index: number) => {
  const starts = source.events.flatMap((event, i) => (event.type === marker ? [i] : []));
  return source.events.slice(starts[index], starts[index + 1]);
};

/** A member of a docs team, subscribed to its document changes, and a writer in that team. */
async function docsWatcher(): Promise<{ watcher: any; writer: DocsClient }> {
  const watcher = await newIdentity();
  const writer = await addDocsMember(t, { team: `watched${++counter}`, domain: DOMAIN, alias: `author${counter}` });
  expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(writer.teamId)}/members`, { did_key: watcher.did_key, alias: watcher.alias }), 201);
  expectOk(await t.request('POST', '/v1/events/subscriptions', { token: watcher.api_key, body: { type: 'docs/doc.changed' } }), 201);
  return { watcher, writer };
}

describe('a dropped stream resumes with Last-Event-ID: nothing repeated, nothing lost', () => {
  it('on the identity stream: mail, chat, a control signal and docs/doc.changed written in between', async () => {
    const { watcher: rex, writer } = await docsWatcher();
    const seen = [await mail(rex, 'one'), await mail(rex, 'two')];
    const es = listen('/v1/events/stream', rex.api_key, IDENTITY_EVENTS);
    await es.until(() => es.of('mail_message').length === 2);
    expect(es.events.map((e) => e.type)).toEqual(['connected', 'mail_message', 'mail_message']);
    for (const event of es.events) expect(event.lastEventId).toMatch(/^ev1\.[\w-]+$/);
    const lastSeen = es.events.at(-1)!.lastEventId;

    es.down();
    await sleep(RETRY_MS * 3); // the client's reconnects fail meanwhile
    const three = await mail(rex, 'three');
    const chat = expectOk(await t.request('POST', '/v1/chat/sessions', { token: ann.api_key, body: { to_aliases: [rex.alias], message: 'ping' } }));
    const pause = expectOk(await t.request('POST', `/v1/agents/${rex.alias}/control`, { token: ann.api_key, body: { signal: 'pause' } }));
    expectOk(await writer.create('resumed-doc', '# changed while away'), 201);
    es.up();

    await es.until(() => es.of('docs/doc.changed').length === 1 && es.of('control_pause').length === 1 && es.of('chat_message').length === 1);
    await sleep(300);
    const resumed = connectionEvents(es, 'connected', 1);
    expect(resumed[0]?.type).toBe('connected');
    expect(
      resumed
        .slice(1)
        .map((e) => e.data.message_id ?? e.data.signal_id ?? e.data.slug)
        .sort(),
    ).toEqual([three.message_id, chat.message_id, pause.signal_id, 'resumed-doc'].sort());
    // Nothing seen before the drop came again, and no frame came twice.
    expect(es.of('mail_message').map((e) => e.data.message_id)).toEqual([...seen.map((m) => m.message_id), three.message_id]);
    // The reconnect that got through sent the id of the last frame received.
    const reconnect = es.requests.filter((r) => r.status !== null);
    expect(reconnect.map((r) => r.lastEventId)).toEqual([undefined, lastSeen]);
    expect(es.requests.filter((r) => r.status === null).every((r) => r.lastEventId === lastSeen)).toBe(true);

    // The control signal stays at most once: a fresh stream does not get it again; unread mail it does.
    const fresh = listen('/v1/events/stream', rex.api_key, IDENTITY_EVENTS);
    await fresh.until(() => fresh.of('mail_message').length === 3 && fresh.of('chat_message').length === 1);
    await sleep(200);
    expect(fresh.of('control_pause')).toEqual([]);
  });

  it('on a chat session stream: the messages and read receipts in between, in place of `after`', async () => {
    const [bob, cy] = [await newIdentity(), await newIdentity()];
    const before = new Date(Date.now() - 1000).toISOString();
    const started = expectOk(await t.request('POST', '/v1/chat/sessions', { token: bob.api_key, body: { to_aliases: [cy.alias], message: 'hello' } }));
    const path = `/v1/chat/sessions/${started.session_id}/stream?after=${encodeURIComponent(before)}`;
    const es = listen(path, cy.api_key, CHAT_EVENTS);
    await es.until(() => es.of('message').length === 1);
    const reply = expectOk(await t.request('POST', `/v1/chat/sessions/${started.session_id}/messages`, { token: cy.api_key, body: { body: 'hi back' } }));
    await es.until(() => es.of('message').length === 2);
    for (const event of es.events) expect(event.lastEventId).toMatch(/^cs1\.[\w-]+$/);

    es.down();
    await sleep(RETRY_MS * 3);
    const later = expectOk(
      await t.request('POST', `/v1/chat/sessions/${started.session_id}/messages`, { token: bob.api_key, body: { body: 'are you there?' } }),
    );
    expectOk(await t.request('POST', `/v1/chat/sessions/${started.session_id}/read`, { token: bob.api_key, body: { up_to_message_id: reply.message_id } }));
    es.up();

    await es.until(() => es.of('read_receipt').length === 1);
    await sleep(300);
    // `after` would have replayed "hello" and "hi back" again: Last-Event-ID took its place.
    expect(es.events.map((e) => [e.type, e.data.body ?? e.data.up_to_message_id])).toEqual([
      ['message', 'hello'],
      ['message', 'hi back'],
      ['message', 'are you there?'],
      ['read_receipt', reply.message_id],
    ]);
    expect(es.of('message')[2]?.data.message_id).toBe(later.message_id);
    expect(es.requests.filter((r) => r.status !== null).map((r) => r.lastEventId)).toEqual([undefined, es.events[1]?.lastEventId]);
  });

  it("on the owner's feed: the mail and chat written in between", async () => {
    const rex = await newIdentity();
    const es = listen('/v1/node/events/stream', t.node.ownerToken, FEED_EVENTS);
    await es.until(() => es.of('connected').length === 1);
    const first = await mail(rex, 'first');
    await es.until(() => es.of('mail_message').length === 1);

    es.down();
    await sleep(RETRY_MS * 3);
    const second = await mail(rex, 'second');
    const chat = expectOk(await t.request('POST', '/v1/chat/sessions', { token: ann.api_key, body: { to_aliases: [rex.alias], message: 'feed ping' } }));
    es.up();

    await es.until(() => es.of('connected').length === 2 && es.of('chat_message').some((e) => e.data.message_id === chat.message_id));
    await sleep(300);
    const mine = (type: string) =>
      es
        .of(type)
        .filter((e) => e.data.agent_id === rex.agent_id)
        .map((e) => e.data.message_id);
    expect(mine('mail_message')).toEqual([first.message_id, second.message_id]);
    expect(mine('chat_message')).toEqual([chat.message_id]);
    for (const event of es.events) expect(event.lastEventId).toMatch(/^nf1\.[\w-]+$/);
  });
});

describe('every stream', () => {
  const paths = async () => {
    const [bob, cy] = [await newIdentity(), await newIdentity()];
    const { session_id } = expectOk(await t.request('POST', '/v1/chat/sessions', { token: bob.api_key, body: { to_aliases: [cy.alias], message: 'hi' } }));
    return [
      { name: 'identity', path: '/v1/events/stream', token: bob.api_key as string, types: IDENTITY_EVENTS },
      { name: 'chat session', path: `/v1/chat/sessions/${session_id}/stream`, token: bob.api_key as string, types: CHAT_EVENTS },
      { name: 'owner feed', path: '/v1/node/events/stream', token: t.node.ownerToken, types: FEED_EVENTS },
    ];
  };

  it('sends `retry:` first and a keepalive comment every interval while idle', async () => {
    for (const { name, path, token } of await paths()) {
      const response = await connectSse(`${t.url}${path}?deadline=${encodeURIComponent(deadlineIn(30))}`, { token });
      expect(response.status, name).toBe(200);
      const stream = response.stream!;
      raw.push(stream);
      await sleep(KEEPALIVE_MS * 4.5);
      expect(stream.retries, name).toEqual([RETRY_MS]);
      expect(stream.comments.filter((c) => c === 'keepalive').length, name).toBeGreaterThanOrEqual(3);
      // Every frame (here: connected, or none on a quiet chat session) carries an id.
      expect(
        stream.ids.every((id) => id !== undefined),
        name,
      ).toBe(true);
    }
  });

  it('ends at the deadline with a `deadline` frame; the reconnect is a 204 and the client stops', async () => {
    for (const { name, path, token, types } of await paths()) {
      const deadline = deadlineIn(1);
      const es = listen(path, token, types, deadline);
      await es.until(() => es.source.readyState === es.source.CLOSED, 4000);
      expect(es.events.at(-1), name).toEqual({ type: 'deadline', data: { type: 'deadline', deadline }, lastEventId: expect.any(String) });
      expect(StreamDeadline.strict().safeParse(es.events.at(-1)?.data).success, name).toBe(true);
      expect(
        es.requests.map((r) => r.status),
        name,
      ).toEqual([200, 204]);
      expect(es.requests[1]?.lastEventId, name).toBe(es.events.at(-1)?.lastEventId);
      expect(es.errors.at(-1), name).toBe(204);
      await sleep(RETRY_MS * 3);
      expect(es.requests, name).toHaveLength(2);
    }
  });

  it('refuses a Last-Event-ID it did not send (422), before opening', async () => {
    const rex = await newIdentity();
    const feedId = (await (async () => {
      const es = listen('/v1/node/events/stream', t.node.ownerToken, FEED_EVENTS);
      await es.until(() => es.of('connected').length === 1);
      return es.events[0]!.lastEventId;
    })()) as string;
    const get = (path: string, token: string, id: string) =>
      t.request('GET', `${path}?deadline=${encodeURIComponent(deadlineIn(30))}`, { token, headers: { 'last-event-id': id } });
    for (const id of ['garbage', 'ev1.!!!', `ev1.${Buffer.from('{"mail":-1}').toString('base64url')}`, feedId, `ev1.${'a'.repeat(3000)}`]) {
      expectValidation(await get('/v1/events/stream', rex.api_key, id), 'last-event-id');
    }
    expectValidation(await get('/v1/node/events/stream', t.node.ownerToken, 'ev1.e30'), 'last-event-id');
    // A past deadline without Last-Event-ID is still the 422 it was: nothing to resume.
    expectValidation(await t.request('GET', `/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(-5))}`, { token: rex.api_key }), 'deadline');
  });
});

describe("the owner's feed resumed from long ago", () => {
  it(`replays up to ${FEED_REPLAY_LIMIT} mails; from further back it says reset and replays none`, async () => {
    const node = await startCoreNode();
    try {
      const { project_id } = node.services.projects.create({ slug: 'feed-replay' });
      const from = node.services.identities.create(project_id, { alias: 'from' });
      const to = node.services.identities.create(project_id, { alias: 'to' });
      const start = { mail: node.services.mail.lastId(), chat: 0 };
      const sent: string[] = [];
      for (let i = 0; i < FEED_REPLAY_LIMIT + 1; i++)
        sent.push(node.services.mail.send(from.agent_id, SendMailBody.parse({ to_alias: 'to', subject: `#${i}`, body: 'x' })).message_id);
      const replay = (mail: number) => {
        const stream = fakeSseStream();
        node.services.wakeFeed.attach(stream, 'node', { mail, chat: 0 });
        stream.close();
        return stream.frames;
      };
      // Exactly the limit behind: everything in between, and no reset.
      const within = replay(start.mail + 1);
      expect(within.filter((f) => f.event === 'mail_message' && f.data.agent_id === to.agent_id).map((f) => f.data.message_id)).toEqual(sent.slice(1));
      expect(within.some((f) => f.event === 'reset')).toBe(false);
      // One more behind: `reset` right after `connected`, nothing replayed, the position is the present.
      const beyond = replay(start.mail);
      expect(beyond.map((f) => f.event)).toEqual(['connected', 'reset']);
      expect(feedIds.decode(beyond.at(-1)?.id)?.mail).toBe(node.services.mail.lastId());
      // A position ahead of the feed (not one it sent) is not trusted to skip what comes next.
      expect(replay(node.services.mail.lastId() + 10).map((f) => f.event)).toEqual(['connected', 'reset']);
    } finally {
      await node.close();
    }
  });
});
