/**
 * Upstream's clients against this node: requests shaped exactly as upstream's Go CLI and
 * TypeScript channel client build them (docs/adr/0001-upstream-wire-primitives.md), and what those
 * clients then read from the answers, checked the way they read it. Written from the wire rules
 * alone; no upstream code is copied. What each client reads:
 *
 * - the channel client: inbox items (`message_id`, `from_alias`, `from_address`, `subject`,
 *   `priority`, `thread_id`, and it verifies `signature` over `signed_payload` with `from_did`,
 *   `signing_key_id` empty or equal to it), chat history items (`from_agent` as the sender's
 *   name, `from_address`, `to_address`, `timestamp`, `sender_leaving`), and the event stream's
 *   `mail_message` / `chat_message` frames (`message_id`, `session_id`, `sender_waiting`);
 * - the Go CLI: typed JSON decoding (a field of the wrong JSON type is an error: strings are
 *   strings, counts are integers, flags are booleans), `unread_count` and `wake_mode` on wake
 *   frames, the pending list's `last_message`, `last_from`, `time_remaining_seconds` (an integer),
 *   and send-and-wait: after a create-or-send with `wait_seconds` it opens the session stream with
 *   `after` = the send's second minus one, skips frames until it sees its own `message_id`, and
 *   takes the first `message` whose sender names match the target (by `from_address`,
 *   `from_did`, a participant's alias, and `from_agent` when the frame says nothing stronger).
 */
import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent, type Project } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';

let t: TestNode;
const DOMAIN = 'upstream.test';
let team: Project;
let other: Project;
let alice: any; // persistent, with an address
let bob: any; // ephemeral, no address
let carol: any; // another project

beforeAll(async () => {
  t = await startTestNode();
  await createNodeNamespace(t, DOMAIN);
  team = await createProject(t, 'team', DOMAIN);
  other = await createProject(t, 'otherteam');
  alice = await createIdentity(t, team.api_key, persistent('alice'));
  bob = await createIdentity(t, team.api_key, { alias: 'bob' });
  carol = await createIdentity(t, other.api_key, { alias: 'carol' });
});
afterAll(async () => {
  await t.stop();
});
const streams: SseClient[] = [];
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});

// ------------------------------------------------------------------ how upstream's clients read JSON

type Kind = 'string' | 'int' | 'bool' | 'array' | 'object';
/** `kind` must be there; `kind?` may also be absent or null (Go leaves the zero value, the channel tests truthiness). */
type Field = Kind | `${Kind}?`;

const kindOf = (value: unknown): Kind | 'null' | 'other' =>
  value === null
    ? 'null'
    : typeof value === 'string'
      ? 'string'
      : typeof value === 'boolean'
        ? 'bool'
        : Number.isInteger(value)
          ? 'int'
          : Array.isArray(value)
            ? 'array'
            : typeof value === 'object'
              ? 'object'
              : 'other';

/** Decodes `value` as a Go struct with these fields would: every listed field of the right JSON type. */
function decodesAs(value: Record<string, unknown>, fields: Record<string, Field>): void {
  for (const [name, field] of Object.entries(fields)) {
    const optional = field.endsWith('?');
    const kind = field.replace('?', '') as Kind;
    const actual = kindOf(value[name]);
    if (optional && (actual === 'null' || value[name] === undefined)) continue;
    expect(actual, `${name} is ${JSON.stringify(value[name])}, upstream's clients read a ${kind}`).toBe(kind);
  }
}

// ------------------------------------------------------------------ signatures, checked as the clients check them

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function base58Decode(text: string): Buffer {
  let n = 0n;
  for (const char of text) n = n * 58n + BigInt(BASE58.indexOf(char));
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n % 256n));
    n /= 256n;
  }
  for (const char of text) {
    if (char !== '1') break;
    bytes.unshift(0);
  }
  return Buffer.from(bytes);
}

/** Pass A of the clients' trust pipeline: the signature over the presented `signed_payload` bytes, with `from_did`. */
function clientVerifies(m: {
  signed_payload?: string;
  signature?: string;
  from_did?: string;
  signing_key_id?: string | null;
}): 'verified' | 'failed' | 'unverified' {
  if (!m.signed_payload || !m.signature || !m.from_did?.startsWith('did:key:z')) return 'unverified';
  if (m.signing_key_id && m.signing_key_id !== m.from_did) return 'failed';
  const multicodec = base58Decode(m.from_did.slice('did:key:z'.length));
  if (multicodec[0] !== 0xed || multicodec[1] !== 0x01 || multicodec.length !== 34) return 'failed';
  const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), multicodec.subarray(2)]), format: 'der', type: 'spki' });
  return verify(null, Buffer.from(m.signed_payload, 'utf8'), key, Buffer.from(m.signature, 'base64')) ? 'verified' : 'failed';
}

// ------------------------------------------------------------------ requests as upstream builds them

const post = (who: any, path: string, body: unknown) => t.request('POST', path, { token: who.api_key, body });
const get = async (who: any, path: string) => expectOk(await t.request('GET', path, { token: who.api_key }));

/** The Go CLI's SendMessageRequest, with its omitempty fields. */
function goSendMessage(fields: {
  to_agent_id?: string;
  to_alias?: string;
  to_did?: string;
  to_address?: string;
  subject?: string;
  body: string;
  priority?: string;
  message_id?: string;
  timestamp?: string;
  thread_id?: string;
}) {
  // Object.entries types an optional field's value as a string, yet a field may be there as undefined.
  return Object.fromEntries(Object.entries<string | undefined>(fields).filter(([, v]) => v !== undefined && v !== ''));
}

const secondsAgo = (date: Date, n: number) => new Date(Math.floor(date.getTime() / 1000) * 1000 - n * 1000).toISOString().replace('.000Z', 'Z');

async function openStream(who: any, path: string): Promise<SseClient> {
  const response = await connectSse(`${t.url}${path}`, { token: who.api_key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const stream = response.stream as SseClient;
  streams.push(stream);
  return stream;
}

describe("mail as upstream's clients send and read it", () => {
  it('accepts the CLI send shapes (to_agent_id, project~alias, thread_id, message_id, timestamp) and answers {message_id, status, delivered_at}', async () => {
    const shapes = [
      goSendMessage({ to_alias: 'bob', subject: 'one', body: 'plain alias', priority: 'normal' }),
      goSendMessage({ to_agent_id: bob.agent_id, body: 'by agent id', priority: 'high' }),
      goSendMessage({ to_alias: 'team~bob', body: 'team~alias in the same team' }),
      goSendMessage({ to_alias: 'bob', body: 'with a client id', message_id: randomUUID(), timestamp: secondsAgo(new Date(), 0) }),
      goSendMessage({ to_alias: 'bob', body: 'in a thread', thread_id: randomUUID() }),
    ];
    for (const shape of shapes) {
      const answer = expectOk(await post(alice, '/v1/messages', shape));
      decodesAs(answer, { message_id: 'string', status: 'string', delivered_at: 'string' });
      expect(answer.status).toBe('delivered');
      if (typeof shape.message_id === 'string') expect(answer.message_id).toBe(shape.message_id);
    }
    expectOk(await post(carol, '/v1/messages', goSendMessage({ to_alias: 'team~bob', body: 'from another team' })));
  });

  it('reads the inbox as the channel client does: every item decodes, names its sender, and verifies', async () => {
    const thread = randomUUID();
    const sent = expectOk(await post(alice, '/v1/messages', goSendMessage({ to_alias: 'bob', subject: 'hello', body: 'threaded', thread_id: thread })));
    const messages = (await get(bob, '/v1/messages/inbox?unread_only=true&limit=200')).messages as any[];
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) {
      decodesAs(m, {
        message_id: 'string',
        from_agent_id: 'string?',
        from_alias: 'string',
        to_alias: 'string?',
        from_address: 'string',
        to_address: 'string?',
        subject: 'string',
        body: 'string',
        priority: 'string',
        thread_id: 'string?',
        read_at: 'string?',
        created_at: 'string',
        from_did: 'string?',
        to_did: 'string?',
        from_stable_id: 'string?',
        to_stable_id: 'string?',
        signature: 'string?',
        signing_key_id: 'string?',
        signed_payload: 'string?',
        rotation_announcement: 'object?',
        replacement_announcement: 'object?',
        is_contact: 'bool?',
      });
      // The sender's display name is `from_address || from_alias`: never empty.
      expect(m.from_address || m.from_alias).not.toBe('');
      expect(clientVerifies(m)).toBe('verified');
      // Addresses hydrate from the signed payload as the clients do: it names the same sender.
      expect([m.from_address, m.from_alias]).toContain(JSON.parse(m.signed_payload).from);
    }
    const item = messages.find((m) => m.message_id === sent.message_id);
    expect(item).toMatchObject({ thread_id: thread, from_address: `${DOMAIN}/alice`, signing_key_id: alice.did_key });
    // Another team's sender without an address is named team~alias, which the CLI can answer to.
    const fromCarol = messages.find((m) => m.body === 'from another team');
    expect(fromCarol.from_address).toBe('otherteam~carol');
    expectOk(await post(bob, '/v1/messages', goSendMessage({ to_alias: fromCarol.from_address, body: 'reply across teams' })));
    // The channel client fetches one message by id, then acknowledges it.
    const [one] = (await get(bob, `/v1/messages/inbox?unread_only=true&limit=200&message_id=${sent.message_id}`)).messages;
    expect(one.message_id).toBe(sent.message_id);
    decodesAs(expectOk(await post(bob, `/v1/messages/${sent.message_id}/ack`, undefined)), { message_id: 'string', acknowledged_at: 'string' });
  });
});

describe("chat as upstream's clients send and read it", () => {
  it('send-and-wait: the reply is recognised by its sender names, after the gate of its own message id', async () => {
    const sentAt = new Date();
    const message_id = randomUUID();
    // ChatCreateSessionRequest as the CLI builds it (omitempty), with a client message id.
    const created = expectOk(
      await post(alice, '/v1/chat/sessions', { to_aliases: ['bob'], message: 'ping', wait_seconds: 120, message_id, timestamp: secondsAgo(sentAt, 0) }),
    );
    decodesAs(created, {
      session_id: 'string',
      message_id: 'string',
      participants: 'array',
      sse_url: 'string',
      targets_connected: 'array',
      targets_left: 'array',
    });
    for (const p of created.participants) decodesAs(p, { agent_id: 'string?', alias: 'string', did: 'string?', address: 'string?' });
    expect(created.message_id).toBe(message_id);

    const stream = await openStream(
      alice,
      `${created.sse_url}?deadline=${encodeURIComponent(deadlineIn(30))}&after=${encodeURIComponent(secondsAgo(sentAt, 1))}`,
    );
    const reply = expectOk(await post(bob, `/v1/chat/sessions/${created.session_id}/messages`, { body: 'pong' }));
    decodesAs(reply, { message_id: 'string', delivered: 'bool', extends_wait_seconds: 'int' });

    // The CLI's wait: skip until our own message, then the first message from the target.
    const targetNames = new Set([
      'bob',
      ...created.participants.filter((p: any) => p.alias === 'bob').flatMap((p: any) => [p.alias, p.address, p.did].filter(Boolean)),
    ]);
    let seenOwn = false;
    let answer: any = null;
    while (answer === null) {
      const frame = await stream.next(5000);
      if (frame.event !== 'message') continue;
      const ev = frame.data;
      decodesAs(ev, {
        session_id: 'string',
        message_id: 'string',
        from_agent: 'string',
        from_address: 'string?',
        to_address: 'string?',
        body: 'string',
        timestamp: 'string',
        sender_leaving: 'bool',
        sender_waiting: 'bool',
        hang_on: 'bool',
        extends_wait_seconds: 'int',
        from_did: 'string?',
        to_did: 'string?',
        from_stable_id: 'string?',
        to_stable_id: 'string?',
        signature: 'string?',
        signing_key_id: 'string?',
        is_contact: 'bool?',
      });
      if (!seenOwn) {
        seenOwn = ev.message_id === message_id;
        continue;
      }
      const strong = [ev.from_address, ev.from_stable_id, ev.from_did].filter(Boolean);
      const names = [...strong, ...created.participants.filter((p: any) => p.did === ev.from_did || p.address === ev.from_address).map((p: any) => p.alias)];
      if (strong.length === 0) names.push(ev.from_agent);
      if (names.some((n) => targetNames.has(n))) answer = ev;
    }
    expect(answer).toMatchObject({ message_id: reply.message_id, body: 'pong', from_agent: 'bob' });
    expect(clientVerifies(answer)).toBe('verified');
    // Without anything stronger the CLI compares `from_agent`: it must be the target's alias.
    expect(answer.from_agent).toBe('bob');
    expect(answer.sender_waiting).toBe(false);

    // A retry of the same create (the agent timed out) is the same send: nothing new in the session.
    expect(expectOk(await post(alice, '/v1/chat/sessions', { to_aliases: ['bob'], message: 'ping', wait_seconds: 120, message_id }))).toEqual(created);
    const history = (await get(bob, `/v1/chat/sessions/${created.session_id}/messages?limit=2000`)).messages as any[];
    expect(history.filter((m) => m.message_id === message_id)).toHaveLength(1);
  });

  it('reads history, pending and the session list as the clients decode them', async () => {
    const created = expectOk(await post(carol, '/v1/chat/sessions', { to_aliases: ['team~alice'], message: 'hello from another team', wait_seconds: 60 }));
    expectOk(await post(carol, `/v1/chat/sessions/${created.session_id}/messages`, { body: 'still there?', hang_on: true }));
    const history = (await get(alice, `/v1/chat/sessions/${created.session_id}/messages?unread_only=true&limit=2000`)).messages as any[];
    expect(history.map((m) => m.body)).toEqual(['hello from another team', 'still there?']);
    for (const m of history) {
      decodesAs(m, {
        message_id: 'string',
        from_agent: 'string',
        from_address: 'string?',
        to_address: 'string?',
        body: 'string',
        timestamp: 'string',
        sender_leaving: 'bool',
        is_contact: 'bool?',
      });
      // The channel shows `from_address || from_agent` as the sender: never empty.
      expect(m.from_address || m.from_agent).toBe('carol');
      expect(clientVerifies(m)).toBe('verified');
      // to_address is what the message was signed to.
      expect(m.to_address).toBe(JSON.parse(m.signed_payload).to);
    }

    const pending = await get(alice, '/v1/chat/pending');
    decodesAs(pending, { pending: 'array', messages_waiting: 'int' });
    const item = pending.pending.find((p: any) => p.session_id === created.session_id);
    decodesAs(item, {
      session_id: 'string',
      participants: 'array',
      participant_dids: 'array?',
      participant_addresses: 'array?',
      last_message: 'string',
      last_from: 'string',
      last_from_stable_id: 'string?',
      last_from_did: 'string?',
      last_from_address: 'string?',
      unread_count: 'int',
      last_activity: 'string',
      sender_waiting: 'bool',
      time_remaining_seconds: 'int',
    });
    expect(item).toMatchObject({ last_message: 'still there?', last_from: 'carol', unread_count: 2 });
    // carol's wait window is open: an integer number of seconds (0, never null, when none is).
    expect(item.time_remaining_seconds).toBeGreaterThan(0);

    const { sessions } = await get(alice, '/v1/chat/sessions');
    for (const s of sessions)
      decodesAs(s, {
        session_id: 'string',
        participants: 'array',
        participant_dids: 'array?',
        participant_addresses: 'array?',
        created_at: 'string',
        sender_waiting: 'bool',
      });
  });
});

describe("the event stream as upstream's clients read it", () => {
  it("carries upstream's fields on mail_message and chat_message", async () => {
    const dora = await createIdentity(t, team.api_key, { alias: 'dora' });
    expectOk(await post(alice, '/v1/messages', goSendMessage({ to_alias: 'dora', subject: 'first', body: 'x' })));
    expectOk(await post(alice, '/v1/messages', goSendMessage({ to_alias: 'dora', subject: 'urgent one', body: 'y', priority: 'urgent' })));
    const chat = expectOk(await post(bob, '/v1/chat/sessions', { to_aliases: ['dora'], message: 'can you look?' }));

    // The channel client asks for five minutes with milliseconds.
    const stream = await openStream(dora, `/v1/events/stream?deadline=${encodeURIComponent(new Date(Date.now() + 300_000).toISOString())}`);
    const frames = await stream.take(4);
    expect(frames.map((f) => f.event)).toEqual(['connected', 'mail_message', 'mail_message', 'chat_message']);
    for (const frame of frames.slice(1, 3)) {
      decodesAs(frame.data, {
        message_id: 'string',
        from_alias: 'string',
        subject: 'string',
        wake_mode: 'string',
        unread_count: 'int',
        from_address: 'string?',
        from_did: 'string?',
        from_stable_id: 'string?',
      });
      expect(frame.data.unread_count).toBe(2);
    }
    expect(frames.slice(1, 3).map((f) => f.data.wake_mode)).toEqual(['idle', 'prompt']);
    const wake = frames[3]!.data;
    decodesAs(wake, {
      message_id: 'string',
      session_id: 'string',
      from_alias: 'string',
      sender_waiting: 'bool',
      participants: 'array',
      last_message: 'string',
      last_from: 'string',
      last_activity: 'string',
      unread_count: 'int',
      wake_mode: 'string',
    });
    expect(wake).toMatchObject({
      session_id: chat.session_id,
      participants: ['bob'],
      last_message: 'can you look?',
      last_from: 'bob',
      unread_count: 1,
      wake_mode: 'prompt',
    });
    // The channel then fetches exactly that message.
    const [fetched] = (await get(dora, `/v1/chat/sessions/${wake.session_id}/messages?unread_only=true&limit=2000&message_id=${wake.message_id}`)).messages;
    expect(fetched).toMatchObject({ message_id: wake.message_id, from_agent: 'bob' });
  });
});

describe('GET /health', () => {
  it('answers {"status":"ok","version"} without credentials', async () => {
    const health = expectOk(await t.request('GET', '/health'));
    decodesAs(health, { status: 'string', version: 'string' });
    expect(health.status).toBe('ok');
  });
});

describe('GET /v1/did/{did_aw}/key, as upstream’s registry resolver reads it', () => {
  it('carries the identity’s encryption key assertion, every field a string and the optional ones absent rather than null', async () => {
    const answer = expectOk(await t.request('GET', `/v1/did/${alice.did_aw}/key`));
    decodesAs(answer, { did_aw: 'string', current_did_key: 'string', encryption_key: 'object' });
    decodesAs(answer.encryption_key, {
      operation: 'string',
      version: 'string',
      identity_did: 'string',
      identity_stable_id: 'string',
      custody: 'string',
      encryption_key_id: 'string',
      encryption_public_key: 'string',
      algorithm: 'string',
      created_at: 'string',
      not_before: 'string',
      expires_at: 'string',
      signature: 'string',
    });
    expect(Object.values(answer.encryption_key)).not.toContain(null);
    expect(answer.encryption_key).not.toHaveProperty('previous_encryption_key_id');
    expect(answer.encryption_key).toMatchObject({ identity_did: answer.current_did_key, identity_stable_id: alice.did_aw });
  });
});
