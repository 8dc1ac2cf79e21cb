/**
 * The event streams' frames are declared in the contract (contract/core/events.ts, chat.ts) even
 * though an SSE route has no JSON response schema to check them against: here every frame the
 * node really sends (an identity's stream, the owner's feed, a chat session's stream) is parsed
 * with the contract's schema for its event name, strictly, so a frame that drifts from what the
 * UI, the desktop shell and agents read fails here.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ChatMessageFrame, ReadReceipt, StreamError } from '../../contract/core/chat.ts';
import { IdentityStreamFrames, NodeFeedFrames } from '../../contract/core/events.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient, type SseFrame } from '../support/sse.ts';

let t: TestNode;
let ann: { agent_id: string; api_key: string; alias: string };
let bob: { agent_id: string; api_key: string; alias: string };

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});
beforeAll(async () => {
  await createNodeNamespace(t, 'frames.test');
  const project = await createProject(t, 'frames', 'frames.test');
  ann = await createIdentity(t, project.api_key, persistent('ann'));
  bob = await createIdentity(t, project.api_key, persistent('bob'));
});

const open: SseClient[] = [];
afterEach(() => {
  for (const stream of open.splice(0)) stream.close();
});

async function connect(path: string, token: string): Promise<SseClient> {
  const response = await connectSse(`${t.url}${path}${path.includes('?') ? '&' : '?'}deadline=${encodeURIComponent(deadlineIn(30))}`, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  open.push(response.stream as SseClient);
  return response.stream as SseClient;
}

/** The frame parsed with the contract's schema for its event name, unknown fields refused. */
function expectDeclared(frames: Record<string, z.ZodObject>, frame: SseFrame): void {
  const schema = frames[frame.event];
  expect(schema, `no schema for the ${frame.event} frame`).toBeDefined();
  const parsed = schema!.strict().safeParse(frame.data);
  expect(parsed.error?.issues ?? [], `${frame.event}: ${JSON.stringify(frame.data)}`).toEqual([]);
}

describe('the frames the node sends are the contract’s', () => {
  it('on an identity’s stream and on the owner’s feed: connected, mail, chat, control, mail changes', async () => {
    const stream = await connect('/v1/events/stream', bob.api_key);
    const feed = await connect('/v1/node/events/stream', t.node.ownerToken);
    expect((await stream.next()).event).toBe('connected');
    expect((await feed.next()).event).toBe('connected');

    const mail = expectOk(
      await t.request('POST', '/v1/messages', { token: ann.api_key, body: { to_alias: bob.alias, subject: 'hi', body: 'hello', priority: 'urgent' } }),
    );
    expectOk(await t.request('POST', '/v1/chat/sessions', { token: ann.api_key, body: { to_aliases: [bob.alias], message: 'ping' } }));
    expectOk(await t.request('POST', `/v1/agents/${bob.alias}/control`, { token: ann.api_key, body: { signal: 'pause' } }));
    expectOk(await t.request('POST', `/v1/messages/${mail.message_id}/ack`, { token: bob.api_key, body: {} }));

    const frames = await stream.take(3);
    expect(frames.map((f) => f.event)).toEqual(['mail_message', 'chat_message', 'control_pause']);
    const nodeFrames = await feed.take(3);
    expect(nodeFrames.map((f) => f.event)).toEqual(['mail_message', 'chat_message', 'mail_changed']);
    for (const frame of stream.frames) expectDeclared(IdentityStreamFrames, frame);
    for (const frame of feed.frames) expectDeclared(NodeFeedFrames, frame);
  });

  it('on a chat session’s stream: message and read_receipt', async () => {
    const started = expectOk(
      await t.request('POST', '/v1/chat/sessions', { token: ann.api_key, body: { to_aliases: [bob.alias], message: 'are you there?' } }),
    );
    const stream = await connect(`/v1/chat/sessions/${started.session_id}/stream`, ann.api_key);
    const reply = expectOk(
      await t.request('POST', `/v1/chat/sessions/${started.session_id}/messages`, { token: bob.api_key, body: { body: 'here', hang_on: true } }),
    );
    expectOk(await t.request('POST', `/v1/chat/sessions/${started.session_id}/read`, { token: bob.api_key, body: { up_to_message_id: reply.message_id } }));
    const frames = await stream.take(2);
    expect(frames.map((f) => f.event)).toEqual(['message', 'read_receipt']);
    for (const frame of frames) expectDeclared({ message: ChatMessageFrame, read_receipt: ReadReceipt, error: StreamError }, frame);
  });
});
