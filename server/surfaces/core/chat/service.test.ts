/**
 * What the chat service offers the identity event stream (wake items) and the bus nudges it
 * publishes, on a real encrypted database and custody, without HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnerAccess } from '../../../auth/owner.ts';
import { OwnerSessions } from '../../../auth/owner-sessions.ts';
import { ReplayCache } from '../../../auth/replay-cache.ts';
import { systemClock } from '../../../clock.ts';
import type { NodeContext } from '../../../context.ts';
import { Custody } from '../../../custody/custody.ts';
import { staticDnsResolver } from '../../../dns/resolver.ts';
import { EventBus, identityTopic, OWNER_SESSIONS_TOPIC, sessionTopic } from '../../../events/bus.ts';
import { closeDatabase, openDatabase } from '../../../store/database.ts';
import { createCoreServices, type CoreServices } from '../services.ts';
import { ChatPresence } from './presence.ts';
import { randomUUID } from 'node:crypto';
import { CreateSessionBody, HistoryQuery, SendMessageBody } from '../../../../contract/core/chat.ts';
import { FEDERATION_VERSION, type FederatedChat } from '../../../../contract/core/federation.ts';

let dir: string;
let custody: Custody;
let ctx: NodeContext;
let services: CoreServices;
let projectId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-chat-'));
  custody = await Custody.open({ dataDir: dir, backend: 'key-file', warn() {} });
  const db = openDatabase({ file: join(dir, 'node.db'), key: custody.databaseKey() });
  custody.attach(db);
  ctx = {
    db,
    custody,
    clock: systemClock,
    dns: staticDnsResolver(),
    replay: new ReplayCache(300_000),
    bus: new EventBus(),
    urls: { core_url: '', library_url: '', docs_url: '', ui_url: '', public_url: null },
    ownOrigins: () => [],
  };
  services = createCoreServices(ctx, new OwnerAccess({ sessions: new OwnerSessions(ctx.db, ctx.clock, () => ctx.bus.publish(OWNER_SESSIONS_TOPIC)) }));
  projectId = services.projects.create({ slug: 'chat-unit' }).project_id;
});
afterAll(() => {
  closeDatabase(ctx.db);
  custody.close();
  rmSync(dir, { recursive: true, force: true });
});

const identity = (alias: string) => services.identities.create(projectId, { alias });
const createOrSend = (from: string, to: string, message: string, extra: Record<string, unknown> = {}) =>
  services.chat.createOrSend(from, CreateSessionBody.parse({ to_aliases: [to], message, ...extra }));

/** Counts publishes per topic while `fn` runs. */
function published(topics: string[], fn: () => void): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(topics.map((topic) => [topic, 0]));
  const offs = topics.map((topic) => ctx.bus.subscribe(topic, () => counts[topic]!++));
  try {
    fn();
  } finally {
    for (const off of offs) off();
  }
  return counts;
}

describe('ChatService.wakeItems', () => {
  it('lists unread messages from others, oldest first, after a row id, until they are read', () => {
    const a = identity('wake-a');
    const b = identity('wake-b');
    const c = identity('wake-c');
    const ab = createOrSend(a.agent_id, 'wake-b', 'first');
    const cb = createOrSend(c.agent_id, 'wake-b', 'x'.repeat(300));
    services.chat.send(a.agent_id, ab.session_id, SendMessageBody.parse({ body: 'second' }));
    // b's own message is never a wake item for b.
    services.chat.send(b.agent_id, ab.session_id, SendMessageBody.parse({ body: 'mine' }));

    const items = services.chat.wakeItems(b.agent_id, 0);
    expect(items.map((i) => i.body.slice(0, 6))).toEqual(['first', 'xxxxxx', 'second']);
    expect(items[0]).toEqual({
      id: expect.any(Number),
      message_id: ab.message_id,
      session_id: ab.session_id,
      from_alias: 'wake-a',
      from_address: null,
      from_did: a.did_key,
      from_stable_id: null,
      body: 'first',
      preview: 'first',
      created_at: expect.any(String),
      sender_waiting: false,
      // Upstream's session summary, as b sees the session now: its own reply is the newest message.
      participants: ['wake-a'],
      last_message: 'mine',
      last_from: 'wake-b',
      last_activity: expect.any(String),
      unread_count: 2,
      wake_mode: 'prompt',
    });
    expect(items[1]).toMatchObject({ session_id: cb.session_id, from_alias: 'wake-c' });
    expect(items[1]!.preview).toHaveLength(200);
    expect(items[0]!.id).toBeLessThan(items[1]!.id);
    expect(items[1]!.id).toBeLessThan(items[2]!.id);

    // After a row id: only newer items.
    expect(services.chat.wakeItems(b.agent_id, items[0]!.id).map((i) => i.message_id)).toEqual([items[1]!.message_id, items[2]!.message_id]);
    // The senders have nothing from b unread... except a, who has b's message.
    expect(services.chat.wakeItems(c.agent_id, 0)).toEqual([]);
    expect(services.chat.wakeItems(a.agent_id, 0).map((i) => i.body)).toEqual(['mine']);

    // Reading removes them.
    services.chat.markRead(b.agent_id, ab.session_id, items[2]!.message_id);
    expect(services.chat.wakeItems(b.agent_id, 0).map((i) => i.session_id)).toEqual([cb.session_id]);
  });

  it('reports sender_waiting while the sender has the session stream open', () => {
    const a = identity('wait-a');
    const b = identity('wait-b');
    const { session_id } = createOrSend(a.agent_id, 'wait-b', 'are you there?', { wait_seconds: 60 });
    const release = services.chat.connect(session_id, a.agent_id);
    expect(services.chat.wakeItems(b.agent_id, 0)[0]?.sender_waiting).toBe(true);
    release();
    release();
    expect(services.chat.wakeItems(b.agent_id, 0)[0]?.sender_waiting).toBe(false);
  });
});

describe('a participant on another node', () => {
  const FAR = 'far.test/dee';
  let n = 0;
  const fromFar = (to: string, extra: Partial<FederatedChat> = {}): FederatedChat => ({
    v: FEDERATION_VERSION,
    kind: 'chat',
    message_id: randomUUID(),
    from: FAR,
    from_did: 'did:key:zDee',
    from_stable_id: null,
    to,
    body: `from afar ${++n}`,
    reply_to: null,
    wait_seconds: null,
    hang_on: false,
    sender_leaving: false,
    timestamp: new Date().toISOString(),
    signature: 'sig',
    signed_payload: '{}',
    ...extra,
  });

  it('is read like any other: unread, pending, wake items, history and its goodbye, but never woken itself', () => {
    const a = identity('far-a');
    const recipient = { ...services.identities.row(a.agent_id), address: 'here.test/far-a' };
    const first = fromFar(recipient.address);
    services.chat.receiveRemote(first, recipient, { contact: false, namespaceTrust: 'verified' });
    expect(services.chat.hasMessage(first.message_id, first.from_did)).toBe(true);
    expect(() => services.chat.hasMessage(first.message_id, 'did:key:zOther')).toThrow(/already taken/);

    const [session] = services.chat.listSessions(a.agent_id).sessions;
    expect(session).toMatchObject({ participants: ['dee'], participant_addresses: [FAR], unread_count: 1, participants_left: [], you_left: false });
    expect(services.chat.pending(a.agent_id).pending.map((p) => p.session_id)).toEqual([session!.session_id]);
    expect(services.chat.wakeItems(a.agent_id, 0).map((i) => i.message_id)).toEqual([first.message_id]);
    const posted = services.chat.postedSince(services.chat.rowIdOf(first.message_id) - 1, 10);
    expect(posted.map((p) => p.to_agent_id)).toEqual([a.agent_id]);

    const goodbye = fromFar(recipient.address, { sender_leaving: true, from_stable_id: 'did:svc:dee' });
    services.chat.receiveRemote(goodbye, recipient, { contact: false, namespaceTrust: 'unverified' });
    const history = services.chat.history(a.agent_id, session!.session_id, HistoryQuery.parse({}));
    expect(history.messages.map((m) => [m.from_agent_id, m.from_address, m.from_namespace_trust, m.sender_leaving])).toEqual([
      [null, FAR, 'verified', false],
      [null, FAR, 'unverified', true],
    ]);
    expect(history.participants.map((p) => [p.agent_id, p.address, p.did, p.left_at === null])).toEqual([
      [a.agent_id, null, a.did_key, true],
      [null, FAR, 'did:svc:dee', false],
    ]);
    expect(services.chat.listSessions(a.agent_id).sessions[0]).toMatchObject({ unread_count: 2, participants_left: ['dee'] });
    // Only the identity of this node has watermarks and streams to nudge.
    expect(services.chat.readWatermarks(session!.session_id, 'nobody')).toEqual(new Map([[a.agent_id, 0]]));
    expect(published([identityTopic(a.agent_id)], () => services.chat.markRead(a.agent_id, session!.session_id, goodbye.message_id))).toEqual({
      [identityTopic(a.agent_id)]: 1,
    });
    expect(services.chat.listSessions(a.agent_id).sessions[0]).toMatchObject({ unread_count: 0 });
  });
});

describe('bus nudges', () => {
  it('publishes the session topic and the other participants’ identity topics after a message and after a read', () => {
    const a = identity('bus-a');
    const b = identity('bus-b');
    const first = createOrSend(a.agent_id, 'bus-b', 'hi');
    const topics = [sessionTopic(first.session_id), identityTopic(a.agent_id), identityTopic(b.agent_id)];

    let message = first;
    expect(published(topics, () => (message = createOrSend(a.agent_id, 'bus-b', 'again')))).toEqual({
      [topics[0]!]: 1,
      [topics[1]!]: 0,
      [topics[2]!]: 1,
    });
    expect(published(topics, () => services.chat.send(b.agent_id, first.session_id, SendMessageBody.parse({ body: 'reply' })))).toEqual({
      [topics[0]!]: 1,
      [topics[1]!]: 1,
      [topics[2]!]: 0,
    });
    expect(published(topics, () => services.chat.markRead(b.agent_id, first.session_id, message.message_id))).toEqual({
      [topics[0]!]: 1,
      [topics[1]!]: 1,
      [topics[2]!]: 1,
    });
    // A read that moves nothing publishes nothing.
    expect(published(topics, () => services.chat.markRead(b.agent_id, first.session_id, first.message_id))).toEqual({
      [topics[0]!]: 0,
      [topics[1]!]: 0,
      [topics[2]!]: 0,
    });
    // A refused send publishes nothing.
    expect(published(topics, () => expect(() => createOrSend(a.agent_id, 'bus-a', 'to myself')).toThrow(/is you/))).toEqual({
      [topics[0]!]: 0,
      [topics[1]!]: 0,
      [topics[2]!]: 0,
    });
  });
});

describe('ChatPresence', () => {
  it('counts each open stream and forgets a viewer when its last stream closes', () => {
    const presence = new ChatPresence();
    const first = presence.connect('s', 'a');
    const second = presence.connect('s', 'a');
    expect(presence.isConnected('s', 'a')).toBe(true);
    expect(presence.isConnected('s', 'b')).toBe(false);
    expect(presence.isConnected('t', 'a')).toBe(false);
    first();
    first();
    expect(presence.isConnected('s', 'a')).toBe(true);
    second();
    expect(presence.isConnected('s', 'a')).toBe(false);
  });
});
