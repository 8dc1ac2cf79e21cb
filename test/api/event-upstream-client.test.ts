/**
 * Upstream's current Go client on the identity event stream, unchanged in what it sends and how it
 * reads (test/support/upstream-event-client.ts follows its source rule for rule): it wakes on
 * `actionable_mail` and `actionable_chat` only, and reads `team_id` from `connected`. The node
 * sends the spec's `mail_message` and `chat_message` and, on a stream opened with upstream's
 * DIDKey auth, upstream's names right after them; a Bearer stream (the spec's) gets the spec's only.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ActionableChatFrame, ActionableMailFrame, IdentityConnected } from '../../contract/core/events.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { nowSeconds, signedFields, type Envelope } from '../support/self-signer.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';
import { upstreamMember, type UpstreamClient } from '../support/upstream-client.ts';
import { isActionableCoordination, openAgentEventStream, type AgentEventStream } from '../support/upstream-event-client.ts';

const DOMAIN = 'upstream-events.example';
let t: TestNode;
let teamId: string;
let alice: UpstreamClient;
let bob: UpstreamClient;
let aliceAgentId: string;

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});
beforeAll(async () => {
  teamId = expectOk(await t.owner('POST', '/v1/node/teams', { name: 'crew', domain: DOMAIN }), 201).team_id;
  alice = await upstreamMember(t, teamId, 'alice');
  bob = await upstreamMember(t, teamId, 'bob');
  aliceAgentId = expectOk(await alice.request('POST', '/v1/connect', { hostname: 'laptop' })).agent_id;
  expectOk(await bob.request('POST', '/v1/connect', { hostname: 'ci' }));
});

const open: { close(): void }[] = [];
afterEach(() => {
  for (const stream of open.splice(0)) stream.close();
});

/** bob mails alice, signing it himself as upstream's clients do. */
async function mailAlice(subject: string, priority?: string): Promise<string> {
  const envelope: Envelope = {
    type: 'mail',
    from: 'bob',
    to: 'alice',
    to_did: alice.key.didKey,
    subject,
    body: `about ${subject}`,
    ...(priority ? { priority } : {}),
  };
  const signed = signedFields(bob.key, envelope, { at: nowSeconds() });
  return expectOk(await bob.request('POST', '/v1/messages', { to_alias: 'alice', subject, body: envelope.body, ...(priority ? { priority } : {}), ...signed }))
    .message_id;
}

async function goClient(): Promise<AgentEventStream> {
  const stream = await openAgentEventStream(t.url, alice, new Date(Date.now() + 60_000));
  open.push(stream);
  return stream;
}

describe("upstream's Go client on the event stream", () => {
  it('reads team_id from connected, and wakes on mail and chat as actionable_mail and actionable_chat', async () => {
    const pending = await mailAlice('waiting when it connects');
    const go = await goClient();
    expect(await go.next()).toEqual({ type: 'connected', agent_id: aliceAgentId, team_id: teamId });

    // The snapshot: the unread mail, under the name the client knows (it skips mail_message).
    const snapshot = await go.next();
    expect(snapshot).toMatchObject({
      type: 'actionable_mail',
      message_id: pending,
      from_alias: 'bob',
      subject: 'waiting when it connects',
      channel: 'mail',
      wake_mode: 'idle',
    });
    expect(isActionableCoordination(snapshot)).toBe(true);

    // Live: urgent mail wakes it at once (prompt); a chat message too.
    const urgent = await mailAlice('now', 'urgent');
    expect(await go.next()).toMatchObject({
      type: 'actionable_mail',
      message_id: urgent,
      conversation_id: urgent,
      wake_mode: 'prompt',
      unread_count: 2,
      channel: 'mail',
    });
    const chat: Envelope = { type: 'chat', from: 'bob', to: 'alice', to_did: alice.key.didKey, body: 'pair?', wait_seconds: 0 };
    const signed = signedFields(bob.key, chat, { at: nowSeconds() });
    const started = expectOk(await bob.request('POST', '/v1/chat/sessions', { to_aliases: ['alice'], message: chat.body, wait_seconds: 0, ...signed }));
    const woke = await go.next();
    expect(woke).toMatchObject({
      type: 'actionable_chat',
      session_id: started.session_id,
      conversation_id: started.session_id,
      message_id: started.message_id,
      from_alias: 'bob',
      wake_mode: 'prompt',
      channel: 'chat',
      unread_count: 1,
    });
    expect(isActionableCoordination(woke)).toBe(true);
  });

  it("sends both names on a DIDKey stream, each upstream frame right after the spec's with the same id, in the contract's shapes", async () => {
    const opened = await alice.stream(`/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(60))}`);
    const stream = opened.stream as SseClient;
    open.push(stream);
    const connected = await stream.next();
    expect(IdentityConnected.strict().parse(connected.data)).toMatchObject({ agent_id: aliceAgentId, team_id: teamId });
    // The snapshot of what is unread: every item twice, in pairs.
    const sent = await mailAlice('pairs');
    const frames = await stream.take(2 * 4);
    const last = frames.slice(-2);
    expect(last.map((f) => f.event)).toEqual(['mail_message', 'actionable_mail']);
    expect(last[1]?.data.message_id).toBe(sent);
    expect(stream.ids.at(-1)).toBe(stream.ids.at(-2));
    for (let i = 0; i < frames.length; i += 2) {
      const [spec, theirs] = [frames[i]!, frames[i + 1]!];
      expect(theirs.event).toBe(spec.event === 'mail_message' ? 'actionable_mail' : 'actionable_chat');
      expect(theirs.data.message_id).toBe(spec.data.message_id);
      (theirs.event === 'actionable_mail' ? ActionableMailFrame : ActionableChatFrame).strict().parse(theirs.data);
    }
  });

  it("keeps a Bearer stream to the spec's names; its connected names the team of an identity in one", async () => {
    await createNodeNamespace(t, 'keyed.test');
    const project = await createProject(t, 'keyed', 'keyed.test');
    const keyed = await createIdentity(t, project.api_key, { alias: 'keyed' });
    const carol = await createIdentity(t, project.api_key, { alias: 'carol' });
    const connect = async () => {
      const response = await connectSse(`${t.url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(60))}`, { token: keyed.api_key });
      const stream = response.stream as SseClient;
      open.push(stream);
      return stream;
    };
    const stream = await connect();
    expect((await stream.next()).data).toEqual({ agent_id: keyed.agent_id, project_id: project.project_id });
    expectOk(await t.request('POST', '/v1/messages', { token: carol.api_key, body: { to_alias: 'keyed', subject: 'spec only', body: 'x' } }));
    expect((await stream.next()).event).toBe('mail_message');
    expect(await stream.maybeNext(300)).toBeNull();

    expectOk(await t.owner('POST', `/v1/node/teams/${encodeURIComponent(teamId)}/members`, { did_key: keyed.did_key, alias: 'keyed' }), 201);
    expect((await (await connect()).next()).data).toEqual({ agent_id: keyed.agent_id, project_id: project.project_id, team_id: teamId });
  });
});
