/**
 * One identity's key (or the owner's token) opening stream after stream: each holds a socket,
 * buffers and a poll on the node, so the node keeps at most STREAMS_PER_HOLDER open per identity
 * (whichever of its keys, or its team certificate, opened them) and per owner feed, and closes
 * the oldest first. The closed ones end cleanly: a `superseded` frame, then a finished response,
 * never a reset connection.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamSuperseded } from '../../contract/core/events.ts';
import { STREAMS_PER_HOLDER } from '../../server/events/stream-cap.ts';
import { SESSION_STREAMS_PER_IDENTITY } from '../../server/surfaces/core/chat/stream-limits.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';
import { upstreamMember } from '../support/upstream-client.ts';

const DOMAIN = 'cap.test';
const EXTRA = 4;
let t: TestNode;
let project: Project;
let ann: any;
let counter = 0;

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});
beforeAll(async () => {
  await createNodeNamespace(t, DOMAIN);
  project = await createProject(t, 'cap', DOMAIN);
  ann = await createIdentity(t, project.api_key, persistent('ann'));
});

const open: SseClient[] = [];
afterEach(() => {
  for (const stream of open.splice(0)) stream.close();
});

const path = (base: string) => `${base}?deadline=${encodeURIComponent(deadlineIn(60))}`;

/** Opens one stream and waits for its `connected`, so the streams' order is the order opened. */
async function openStream(base: string, headers: Record<string, string>): Promise<SseClient> {
  const response = await connectSse(`${t.url}${path(base)}`, { headers });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const stream = response.stream as SseClient;
  open.push(stream);
  expect((await stream.next()).event).toBe('connected');
  return stream;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The oldest `count` streams ended with `superseded` as their last frame; the rest are open. */
async function expectOldestClosed(streams: SseClient[], count: number): Promise<void> {
  for (const stream of streams.slice(0, count)) {
    const rest = await stream.untilEnd();
    expect(rest.map((f) => f.event)).toEqual(['superseded']);
    expect(StreamSuperseded.strict().parse(rest[0]?.data)).toMatchObject({ type: 'superseded', limit: STREAMS_PER_HOLDER });
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(streams.slice(count).map((s) => s.ended)).toEqual(Array(streams.length - count).fill(false));
}

describe(`at most ${STREAMS_PER_HOLDER} open streams per identity and per owner`, () => {
  it(`closes an identity's oldest streams when its keys open ${STREAMS_PER_HOLDER + EXTRA}; the newest ${STREAMS_PER_HOLDER} still wake`, async () => {
    const rex = await createIdentity(t, project.api_key, { alias: `rx${++counter}` });
    // Its API key and a session key the owner minted: one identity, one count.
    const session = expectOk(await t.owner('POST', `/v1/node/identities/${rex.agent_id}/session-key`), 201);
    const streams: SseClient[] = [];
    for (let i = 0; i < STREAMS_PER_HOLDER + EXTRA; i++)
      streams.push(await openStream('/v1/events/stream', bearer(i % 2 === 0 ? rex.api_key : session.api_key)));
    await expectOldestClosed(streams, EXTRA);

    // Another identity is not affected by rex's count.
    const other = await createIdentity(t, project.api_key, { alias: `rx${++counter}` });
    const theirs = await openStream('/v1/events/stream', bearer(other.api_key));

    const sent = expectOk(await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_alias: rex.alias, subject: 'still here', body: 'x' } }));
    for (const stream of streams.slice(EXTRA)) expect((await stream.next()).data.message_id).toBe(sent.message_id);
    expect(theirs.ended).toBe(false);
  });

  it('counts a team member’s certificate-signed streams against its identity the same way', async () => {
    const teamId = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'capped', domain: DOMAIN }), 201).team_id as string;
    const member = await upstreamMember(t, teamId, 'member');
    expectOk(await member.request('POST', '/v1/connect', { hostname: 'box' }));
    const streams: SseClient[] = [];
    for (let i = 0; i < STREAMS_PER_HOLDER + 1; i++) {
      const opened = await member.stream(path('/v1/events/stream'));
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      const stream = opened.stream as SseClient;
      open.push(stream);
      expect((await stream.next()).event).toBe('connected');
      streams.push(stream);
    }
    await expectOldestClosed(streams, 1);
  });

  it(`closes an identity's oldest chat session streams beyond ${SESSION_STREAMS_PER_IDENTITY}, across its sessions`, async () => {
    const rex = await createIdentity(t, project.api_key, { alias: `rx${++counter}` });
    const sessionWith = async (body: string) =>
      expectOk(await t.request('POST', '/v1/chat/sessions', { token: rex.api_key, body: { to_aliases: [ann.alias], message: body } })).session_id as string;
    const sessions = [await sessionWith('first'), await sessionWith('second')];
    const streams: SseClient[] = [];
    for (let i = 0; i < SESSION_STREAMS_PER_IDENTITY + 2; i++) {
      // A session stream has no `connected` frame: its 200 means the node has counted it.
      const response = await connectSse(`${t.url}${path(`/v1/chat/sessions/${sessions[i % 2]}/stream`)}`, { headers: bearer(rex.api_key) });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      open.push(response.stream as SseClient);
      streams.push(response.stream as SseClient);
    }
    for (const stream of streams.slice(0, 2)) {
      const rest = await stream.untilEnd();
      expect(rest.map((f) => f.event)).toEqual(['superseded']);
      expect(StreamSuperseded.strict().parse(rest[0]?.data)).toMatchObject({ limit: SESSION_STREAMS_PER_IDENTITY });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(streams.slice(2).map((s) => s.ended)).toEqual(Array(SESSION_STREAMS_PER_IDENTITY).fill(false));
    // Ann's own session streams are hers to count.
    const hers = await connectSse(`${t.url}${path(`/v1/chat/sessions/${sessions[0]}/stream`)}`, { headers: bearer(ann.api_key) });
    expect(hers.status).toBe(200);
    open.push(hers.stream as SseClient);
  });

  it("closes the owner's oldest feeds beyond the cap", async () => {
    const streams: SseClient[] = [];
    for (let i = 0; i < STREAMS_PER_HOLDER + 2; i++) streams.push(await openStream('/v1/node/events/stream', bearer(t.node.ownerToken)));
    await expectOldestClosed(streams, 2);
  });

  it('ends a superseded stream with a complete response, not a dropped connection', async () => {
    const rex = await createIdentity(t, project.api_key, { alias: `rx${++counter}` });
    // The oldest stream, read at the byte level: did the response finish (its last chunk came)?
    const oldest = new Promise<{ complete: boolean; text: string }>((resolve, reject) => {
      const target = new URL(`${t.url}${path('/v1/events/stream')}`);
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, headers: bearer(rex.api_key), agent: false },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ complete: res.complete, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < STREAMS_PER_HOLDER; i++) await openStream('/v1/events/stream', bearer(rex.api_key));
    const { complete, text } = await oldest;
    expect(complete).toBe(true);
    expect(text).toMatch(/event: superseded\n/);
  });
});
