/**
 * A resume that cannot be complete says so. A client away long enough that the node can no
 * longer send it everything it missed gets `reset` right after `connected` (and then what a new
 * connection gets), instead of part of what it missed and silence about the rest. Driven by a
 * standard client, the `eventsource` package, resuming by itself with `Last-Event-ID`.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamReset } from '../../contract/core/events.ts';
import { FEED_REPLAY_LIMIT } from '../../server/surfaces/core/events/node-feed.ts';
import { addDocsMember } from '../support/docs.ts';
import { TestEventSource } from '../support/event-source.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const RETRY_MS = 100;
const DOMAIN = 'reset.test';
const FEED_EVENTS = ['connected', 'reset', 'mail_message', 'chat_message', 'error', 'deadline'];
const IDENTITY_EVENTS = ['connected', 'reset', 'mail_message', 'docs/doc.changed', 'error', 'deadline'];

/** The node's clock runs `offset` ms ahead of the real one (app events age out in node time). */
let offset = 0;
let t: TestNode;
let project: Project;
let ann: any;
let counter = 0;

beforeAll(async () => {
  t = await startTestNode({ clock: { now: () => new Date(Date.now() + offset) }, streams: { keepaliveMs: 1000, retryMs: RETRY_MS } });
  return () => t.stop();
});
beforeAll(async () => {
  await createNodeNamespace(t, DOMAIN);
  project = await createProject(t, 'reset', DOMAIN);
  ann = await createIdentity(t, project.api_key, persistent('ann'));
});

const sources: TestEventSource[] = [];
afterEach(() => {
  offset = 0;
  for (const source of sources.splice(0)) source.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A deadline far enough ahead to outlast the clock moving forward. */
const listen = (path: string, token: string, types: string[]): TestEventSource => {
  const source = new TestEventSource(`${t.url}${path}?deadline=${encodeURIComponent(new Date(Date.now() + 15 * 60_000).toISOString())}`, token, types);
  sources.push(source);
  return source;
};
/** The events received on the `index`-th successful connection (0: the first). */
const connectionEvents = (source: TestEventSource, index: number) => {
  const starts = source.events.flatMap((event, i) => (event.type === 'connected' ? [i] : []));
  return source.events.slice(starts[index], starts[index + 1]);
};

/** Runs `count` requests, `width` at a time. */
async function inParallel(count: number, width: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await one(next++);
    }),
  );
}

describe("the owner's feed resumed from further back than it replays", () => {
  it(`says reset, after more than ${FEED_REPLAY_LIMIT} mails and chat messages came while it was away, and goes on from the present`, async () => {
    const recipients = await Promise.all(Array.from({ length: 10 }, () => createIdentity(t, project.api_key, { alias: `rx${++counter}` })));
    const aliases = recipients.map((r) => r.alias as string);
    const es = listen('/v1/node/events/stream', t.node.ownerToken, FEED_EVENTS);
    await es.until(() => es.of('connected').length === 1);
    const first = expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_alias: aliases[0], subject: 'before', body: 'x' } }));
    await es.until(() => es.of('mail_message').some((e) => e.data.message_id === first.message_id));

    es.down();
    await sleep(RETRY_MS * 3);
    // 600 mails (60 sends to 10 recipients) and 600 chat messages in one session of 11.
    await inParallel(60, 6, async (i) => {
      expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_aliases: aliases, subject: `away ${i}`, body: 'x' } }));
    });
    const chat = expectOk(await t.request('POST', '/v1/chat/sessions', { token: ann.api_key, body: { to_aliases: aliases, message: 'away 0' } }));
    await inParallel(599, 6, async (i) => {
      expectOk(await t.request('POST', `/v1/chat/sessions/${chat.session_id}/messages`, { token: ann.api_key, body: { body: `away ${i + 1}` } }));
    });
    const mailsBefore = es.of('mail_message').length;
    es.up();

    await es.until(() => es.of('reset').length === 1, 10_000);
    const resumed = connectionEvents(es, 1);
    expect(resumed.map((e) => e.type).slice(0, 2)).toEqual(['connected', 'reset']);
    expect(StreamReset.strict().safeParse(resumed[1]?.data).success).toBe(true);
    // The reconnect resumed: it sent the id of the last frame it had.
    expect(es.requests.filter((r) => r.status === 200).at(-1)?.lastEventId).toBe(es.of('mail_message').at(-1)?.lastEventId);

    // Nothing from the gap follows the reset (the client reloads); what comes next does.
    const after = expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_alias: aliases[1], subject: 'after', body: 'x' } }));
    await es.until(() => es.of('mail_message').some((e) => e.data.message_id === after.message_id));
    await sleep(200);
    expect(es.of('mail_message').length).toBe(mailsBefore + 1);
    expect(connectionEvents(es, 1).filter((e) => e.type === 'chat_message')).toEqual([]);
  }, 60_000);

  it('resumes without a reset when what it missed is within the limit', async () => {
    const rex = await createIdentity(t, project.api_key, { alias: `rx${++counter}` });
    const es = listen('/v1/node/events/stream', t.node.ownerToken, FEED_EVENTS);
    await es.until(() => es.of('connected').length === 1);
    es.down();
    await sleep(RETRY_MS * 3);
    const sent: string[] = [];
    for (let i = 0; i < 5; i++)
      sent.push(
        expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_alias: rex.alias, subject: `m${i}`, body: 'x' } })).message_id,
      );
    es.up();
    await es.until(() => es.of('mail_message').length === 5);
    expect(es.of('reset')).toEqual([]);
    expect(es.of('mail_message').map((e) => e.data.message_id)).toEqual(sent);
  });
});

describe("an identity's stream resumed after its app events aged out", () => {
  it('says reset, then sends what a new connection gets (its pending mail)', async () => {
    const watcher = await createIdentity(t, project.api_key, { alias: `rx${++counter}` });
    const writer = await addDocsMember(t, { team: `watched${counter}`, domain: DOMAIN, alias: `author${counter}` });
    expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(writer.teamId)}/members`, { did_key: watcher.did_key, alias: watcher.alias }), 201);
    expectOk(await t.request('POST', '/v1/events/subscriptions', { token: watcher.api_key, body: { type: 'docs/doc.changed' } }), 201);
    const unread = expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_alias: watcher.alias, subject: 'unread', body: 'x' } }));

    const es = listen('/v1/events/stream', watcher.api_key, IDENTITY_EVENTS);
    await es.until(() => es.of('mail_message').length === 1);
    es.down();
    await sleep(RETRY_MS * 3);
    expectOk(await writer.create('while-away', '# written while the client was away'), 201);
    // Six minutes later in node time: the document's event is past the five minutes a stream replays.
    offset = 6 * 60_000;
    es.up();

    await es.until(() => es.of('reset').length === 1);
    await sleep(300);
    const resumed = connectionEvents(es, 1);
    expect(resumed.map((e) => e.type)).toEqual(['connected', 'reset', 'mail_message']);
    expect(resumed[2]?.data.message_id).toBe(unread.message_id);
  });

  it('resumes without a reset while its app events are still within their window', async () => {
    const watcher = await createIdentity(t, project.api_key, { alias: `rx${++counter}` });
    const writer = await addDocsMember(t, { team: `watched${counter}`, domain: DOMAIN, alias: `author${counter}` });
    expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(writer.teamId)}/members`, { did_key: watcher.did_key, alias: watcher.alias }), 201);
    expectOk(await t.request('POST', '/v1/events/subscriptions', { token: watcher.api_key, body: { type: 'docs/doc.changed' } }), 201);
    // Another team's events come and go meanwhile: none of them is the watcher's to miss.
    const stranger = await addDocsMember(t, { team: `stranger${counter}`, domain: DOMAIN, alias: `other${counter}` });

    const es = listen('/v1/events/stream', watcher.api_key, IDENTITY_EVENTS);
    await es.until(() => es.of('connected').length === 1);
    expectOk(await stranger.create('not-theirs', '# x'), 201);
    es.down();
    await sleep(RETRY_MS * 3);
    expectOk(await writer.create('in-window', '# x'), 201);
    es.up();
    await es.until(() => es.of('docs/doc.changed').length === 1);
    expect(es.of('reset')).toEqual([]);
    expect(es.of('docs/doc.changed')[0]?.data.slug).toBe('in-window');
  });
});
