/**
 * Presence on the owner feed: `agent.online` when an identity opens its first event
 * stream or sends a heartbeat, `agent.offline` when its last stream closes with no live heartbeat,
 * or when its heartbeat expires (noticed by the feed's sweep on its poll, no timer per identity).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { NodeFeedFrames } from '../../contract/core/events.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';
import { upstreamMember } from '../support/upstream-client.ts';

let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
let t: TestNode;
let alice: { agent_id: string; api_key: string };
let feed: SseClient;

beforeAll(async () => {
  t = await startTestNode({ clock });
  return () => t.stop();
});
beforeAll(async () => {
  await createNodeNamespace(t, 'presence.test');
  const project = await createProject(t, 'presence', 'presence.test');
  alice = await createIdentity(t, project.api_key, persistent('alice'));
  const opened = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(60))}`, { token: t.node.ownerToken });
  feed = opened.stream!;
  return () => feed.close();
});
beforeAll(async () => {
  expect((await feed.next()).event).toBe('connected');
});

/** The next presence frame on the feed, checked against its declared schema. */
async function nextPresence(ms = 5000): Promise<{ event: string; data: any }> {
  for (;;) {
    const frame = await feed.next(ms);
    if (frame.event !== 'agent.online' && frame.event !== 'agent.offline') continue;
    const data = NodeFeedFrames[frame.event].parse(typeof frame.data === 'string' ? JSON.parse(frame.data) : frame.data);
    return { event: frame.event, data };
  }
}

describe('presence on the owner feed', () => {
  it('goes online with the first open event stream, and offline when the last one closes', async () => {
    const path = (s: number) => `${t.url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(s))}`;
    const first = (await connectSse(path(30), { token: alice.api_key })).stream!;
    const online = await nextPresence();
    expect(online).toMatchObject({ event: 'agent.online', data: { agent_id: alice.agent_id, type: 'agent.online', online: true } });
    // A second stream changes nothing; closing one of two changes nothing.
    const second = (await connectSse(path(30), { token: alice.api_key })).stream!;
    second.close();
    first.close();
    const offline = await nextPresence();
    expect(offline).toMatchObject({ event: 'agent.offline', data: { agent_id: alice.agent_id, online: false } });
    expect(offline.data.last_seen).not.toBeNull();
    expect(await feed.maybeNext(300)).toBeNull();
  });

  it('goes online with a heartbeat and offline when the heartbeat expires, noticed by the sweep', async () => {
    const teamId = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'crew', domain: 'presence.example' }), 201).team_id;
    const bob = await upstreamMember(t, teamId, 'bob');
    const connected = expectOk(await bob.request('POST', '/v1/connect', { hostname: 'ci' }));
    expectOk(await bob.request('POST', '/v1/agents/heartbeat'));
    expect(await nextPresence()).toMatchObject({ event: 'agent.online', data: { agent_id: connected.agent_id } });
    // Another heartbeat while online is no change.
    expectOk(await bob.request('POST', '/v1/agents/heartbeat'));
    expect(await feed.maybeNext(300)).toBeNull();
    // 31 minutes later, with no stream open: the feed's next poll notices.
    offsetMs = 31 * 60 * 1000;
    const offline = await nextPresence(3000);
    expect(offline).toMatchObject({ event: 'agent.offline', data: { agent_id: connected.agent_id, online: false } });
    expect(Date.parse(offline.data.at) - Date.parse(offline.data.last_seen)).toBeGreaterThanOrEqual(30 * 60 * 1000);
  });
});
