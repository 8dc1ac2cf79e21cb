/**
 * The identity event stream (spec §4.5, §6): `connected`, then the pending wake items (unread
 * mail, unread chat, queued control signals) oldest first, then new ones pushed the moment they
 * are written; closed at the deadline (capped at 300 s); control signals delivered at most once.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient, type SseFrame } from '../support/sse.ts';

let t: TestNode;
const DOMAIN = 'events.test';
let project: Project;
let ann: any; // persistent sender with an address

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  project = await createProject(t, 'events', DOMAIN);
  ann = await createIdentity(t, project.api_key, persistent('ann'));
});
afterAll(async () => {
  await t.stop();
});

const open: SseClient[] = [];
afterEach(() => {
  for (const stream of open.splice(0)) stream.close();
});

let counter = 0;
const newIdentity = async (): Promise<any> => createIdentity(t, project.api_key, { alias: `rx${++counter}` });

const streamPath = (deadline: string | null = deadlineIn(30)) => `/v1/events/stream${deadline === null ? '' : `?deadline=${encodeURIComponent(deadline)}`}`;

async function connect(who: { api_key: string }, deadline?: string): Promise<SseClient> {
  const response = await connectSse(`${t.url}${streamPath(deadline)}`, { token: who.api_key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const stream = response.stream as SseClient;
  open.push(stream);
  return stream;
}

const mail = async (to: { alias: string }, subject: string, extra: Record<string, unknown> = {}) =>
  expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_alias: to.alias, subject, body: `about ${subject}`, ...extra } }));
const control = async (to: { alias: string }, signal: string) =>
  expectOk(await t.request('POST', `/v1/agents/${to.alias}/control`, { token: ann.api_key, body: { signal } }));
const ids = (frames: SseFrame[]) => frames.map((f) => f.data.message_id ?? f.data.signal_id);

describe('GET /v1/events/stream', () => {
  it('refuses before opening: a missing, malformed, zone-less or past deadline (422); no or a bad key (401); a project key (403)', async () => {
    const rex = await newIdentity();
    const get = (path: string, token?: string) => t.request('GET', path, token ? { token } : {});
    expectValidation(await get(streamPath(null), rex.api_key), 'deadline');
    expectRefusal(await get(streamPath(null), rex.api_key), 422, /deadline is required/);
    expectValidation(await get(streamPath('tomorrow'), rex.api_key), 'deadline');
    expectValidation(await get(streamPath('2030-01-01T00:00:00'), rex.api_key), 'deadline');
    expectValidation(await get(streamPath(deadlineIn(-5)), rex.api_key), 'deadline');
    expectRefusal(await get(streamPath()), 401);
    expectRefusal(await get(streamPath(), `svc_sk_${'c'.repeat(64)}`), 401);
    expectRefusal(await get(streamPath(), project.api_key), 403);
  });

  it('sends connected first, then pending items oldest first, then live items', async () => {
    const rex = await newIdentity();
    const m1 = await mail(rex, 'first');
    const m2 = await mail(rex, 'second', { priority: 'urgent' });
    const pause = await control(rex, 'pause');

    const response = await connectSse(`${t.url}${streamPath()}`, { token: rex.api_key });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const stream = response.stream as SseClient;
    open.push(stream);

    const [connected, first, second, paused] = await stream.take(4);
    expect(connected).toMatchObject({ event: 'connected', data: { agent_id: rex.agent_id, project_id: project.project_id } });
    expect(first?.event).toBe('mail_message');
    expect(first?.data).toEqual({
      type: 'mail_message',
      message_id: m1.message_id,
      from_alias: 'ann',
      from_address: `${DOMAIN}/ann`,
      from_did: ann.did_key,
      from_stable_id: ann.did_aw,
      subject: 'first',
      priority: 'normal',
      wake_mode: 'idle',
      created_at: m1.delivered_at,
      // Upstream's: the identity's unread mail as the frame was written.
      unread_count: 2,
    });
    expect(second?.data).toMatchObject({ message_id: m2.message_id, subject: 'second', priority: 'urgent', wake_mode: 'prompt' });
    expect(paused).toMatchObject({ event: 'control_pause', data: { type: 'control_pause', signal_id: pause.signal_id, signal: 'pause' } });

    // Live, in the order written.
    const m3 = await mail(rex, 'third');
    const interrupt = await control(rex, 'interrupt');
    const [third, interrupted] = await stream.take(2);
    expect(third).toMatchObject({ event: 'mail_message', data: { message_id: m3.message_id, subject: 'third' } });
    expect(interrupted).toMatchObject({ event: 'control_interrupt', data: { signal_id: interrupt.signal_id } });
    expect(await stream.maybeNext(150)).toBeNull();

    // Reading the stream changes nothing: the mail is still unread.
    const unread = expectOk(await t.request('GET', '/v1/messages/inbox?unread_only=true', { token: rex.api_key })).messages;
    expect(unread.map((m: any) => m.message_id)).toEqual([m3.message_id, m2.message_id, m1.message_id]);
  });

  it('replays the newest 50 unread mails, oldest first, and not the read ones', async () => {
    const rex = await newIdentity();
    const sent: string[] = [];
    for (let i = 0; i < 53; i++) sent.push((await mail(rex, `#${i}`)).message_id);
    expectOk(await t.request('POST', `/v1/messages/${sent[52]}/ack`, { token: rex.api_key }));
    expectOk(await t.request('POST', `/v1/messages/${sent[40]}/ack`, { token: rex.api_key }));

    const stream = await connect(rex);
    expect((await stream.next()).event).toBe('connected');
    const replayed = await stream.take(50);
    const unread = sent.filter((_, i) => i !== 52 && i !== 40);
    expect(ids(replayed)).toEqual(unread.slice(-50));
    expect(replayed.every((f) => f.event === 'mail_message')).toBe(true);
    expect(await stream.maybeNext(150)).toBeNull();
  });

  it('pushes a new item the moment it is written, well before the 1 s poll', async () => {
    const rex = await newIdentity();
    const stream = await connect(rex);
    expect((await stream.next()).event).toBe('connected');
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const sent = await mail(rex, `live ${i}`);
      const frame = await stream.next(1000);
      expect(frame.data.message_id).toBe(sent.message_id);
      expect(frame.receivedAt - started).toBeLessThan(500);
    }
    const started = performance.now();
    const signal = await control(rex, 'resume');
    const frame = await stream.next(1000);
    expect(frame).toMatchObject({ event: 'control_resume', data: { signal_id: signal.signal_id } });
    expect(frame.receivedAt - started).toBeLessThan(500);
  });

  it('wakes on unread chat messages: pending on connect and live, as chat_message', async () => {
    const rex = await newIdentity();
    const before = expectOk(await t.request('POST', '/v1/chat/sessions', { token: ann.api_key, body: { to_aliases: [rex.alias], message: 'before' } }));
    const queuedMail = await mail(rex, 'mail between');

    const stream = await connect(rex);
    const [connected, ...pending] = await stream.take(3);
    expect(connected?.event).toBe('connected');
    // Sent within the same second or not, both are pending; each source's own order is kept.
    const chat = pending.find((f) => f.event === 'chat_message');
    const mailed = pending.find((f) => f.event === 'mail_message');
    expect(chat).toMatchObject({
      event: 'chat_message',
      data: { type: 'chat_message', message_id: before.message_id, session_id: before.session_id, from_alias: 'ann', from_did: ann.did_key },
    });
    expect(chat?.data).not.toHaveProperty('id');
    expect(mailed?.data.message_id).toBe(queuedMail.message_id);

    const started = performance.now();
    const live = expectOk(await t.request('POST', `/v1/chat/sessions/${before.session_id}/messages`, { token: ann.api_key, body: { body: 'are you there?' } }));
    const frame = await stream.next(1000);
    expect(frame).toMatchObject({ event: 'chat_message', data: { message_id: live.message_id, session_id: before.session_id, from_alias: 'ann' } });
    expect(frame.receivedAt - started).toBeLessThan(500);

    // Rex's own reply is not a wake item for rex; once read, nothing is pending on the next connect.
    expectOk(await t.request('POST', `/v1/chat/sessions/${before.session_id}/messages`, { token: rex.api_key, body: { body: 'yes' } }));
    expect(await stream.maybeNext(150)).toBeNull();
    expectOk(await t.request('POST', `/v1/chat/sessions/${before.session_id}/read`, { token: rex.api_key, body: { up_to_message_id: live.message_id } }));
    expectOk(await t.request('POST', `/v1/messages/${queuedMail.message_id}/ack`, { token: rex.api_key }));
    const again = await connect(rex);
    expect((await again.next()).event).toBe('connected');
    expect(await again.maybeNext(150)).toBeNull();
  });

  it('closes at the deadline, with a last `deadline` frame', async () => {
    const rex = await newIdentity();
    const started = performance.now();
    const deadline = deadlineIn(1.5);
    const stream = await connect(rex, deadline);
    expect((await stream.next()).event).toBe('connected');
    expect(await stream.untilEnd(4000)).toEqual([{ event: 'deadline', data: { type: 'deadline', deadline }, receivedAt: expect.any(Number) }]);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThan(1000);
    expect(elapsed).toBeLessThan(3000);
  });

  it('ends with an error frame when the identity is deleted while the stream is open', async () => {
    const rex = await newIdentity();
    const stream = await connect(rex);
    expect((await stream.next()).event).toBe('connected');
    expectOk(await t.request('DELETE', '/v1/agents/me', { token: rex.api_key }));
    const rest = await stream.untilEnd(3000);
    expect(rest).toEqual([{ event: 'error', data: { type: 'error', detail: expect.stringMatching(/Identity is deleted/) }, receivedAt: expect.any(Number) }]);
  });
});

describe('control signals are delivered at most once', () => {
  it('with two streams open, exactly one receives the signal', async () => {
    const rex = await newIdentity();
    const a = await connect(rex);
    const b = await connect(rex);
    expect((await a.next()).event).toBe('connected');
    expect((await b.next()).event).toBe('connected');
    const pause = await control(rex, 'pause');
    const [fromA, fromB] = await Promise.all([a.maybeNext(400), b.maybeNext(400)]);
    const received = [fromA, fromB].filter((f) => f !== null);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ event: 'control_pause', data: { signal_id: pause.signal_id } });
    // Neither gets it later from the poll either.
    expect(await Promise.all([a.maybeNext(1200), b.maybeNext(10)])).toEqual([null, null]);
  });

  it('queued while no stream is open: delivered on the next connect, and not on the one after', async () => {
    const rex = await newIdentity();
    const interrupt = await control(rex, 'interrupt');
    const first = await connect(rex);
    const [connected, frame] = await first.take(2);
    expect(connected?.event).toBe('connected');
    expect(frame).toMatchObject({ event: 'control_interrupt', data: { signal_id: interrupt.signal_id } });
    first.close();
    await first.done;

    const second = await connect(rex);
    expect((await second.next()).event).toBe('connected');
    expect(await second.maybeNext(300)).toBeNull();
  });
});

describe('node shutdown', () => {
  it('ends open streams instead of waiting for their deadlines', async () => {
    const node = await startTestNode();
    try {
      const p = expectOk(await node.owner('POST', '/v1/node/projects', { slug: 'shutdown' }), 201);
      const who = await createIdentity(node, p.api_key);
      const response = await connectSse(`${node.url}${streamPath(deadlineIn(300))}`, { token: who.api_key });
      const stream = response.stream as SseClient;
      expect((await stream.next()).event).toBe('connected');
      const started = performance.now();
      await node.stop();
      await stream.done;
      expect(performance.now() - started).toBeLessThan(3000);
    } finally {
      await node.stop().catch(() => {});
    }
  });
});
