import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { conflict } from '../../../errors.ts';
import { EventBus, identityTopic } from '../../../events/bus.ts';
import { fakeSseStream, type FakeSseStream } from '../../../../test/support/fake-sse.ts';
import type { WakeItem, WakeSource } from './sources.ts';
import { identityStreamIds, runIdentityStream, type IdentityStreamPosition } from './stream.ts';

const AGENT = { agent_id: 'agent-1', project_id: 'project-1' };
const TOPIC = identityTopic(AGENT.agent_id);
const NEVER = 60_000; // a poll interval no test waits for: what arrives came from a nudge

/** A source over a mutable list of items; records the cursors it was asked with. */
function listSource(name: string, items: WakeItem[] = []): WakeSource & { items: WakeItem[]; calls: (number | null)[] } {
  const calls: (number | null)[] = [];
  return {
    name,
    items,
    calls,
    pending(agentId, afterId) {
      expect(agentId).toBe(AGENT.agent_id);
      calls.push(afterId);
      return items.filter((i) => afterId === null || i.id > afterId);
    },
  };
}

const item = (id: number, at: number, event = 'mail_message', extra: Partial<WakeItem> = {}): WakeItem => ({ id, at, event, data: { id }, ...extra });

const streams: FakeSseStream[] = [];
function start(sources: WakeSource[], options: { check?: () => void; pollMs?: number; resume?: IdentityStreamPosition } = {}) {
  const bus = new EventBus();
  const stream = fakeSseStream();
  streams.push(stream);
  runIdentityStream({
    bus,
    agent: AGENT,
    sources,
    stream,
    pollMs: options.pollMs ?? NEVER,
    ...(options.check ? { check: options.check } : {}),
    ...(options.resume ? { resume: options.resume } : {}),
  });
  return { bus, stream };
}
/** The position each frame's id names. */
const positions = (stream: FakeSseStream) => stream.frames.map((f) => identityStreamIds.decode(f.id));
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

describe('runIdentityStream', () => {
  it('sends connected, then the snapshot of every source interleaved by creation second', () => {
    const mail = listSource('mail', [item(1, 100), item(2, 102)]);
    const chat = listSource('chat', [item(7, 101, 'chat_message'), item(8, 102, 'chat_message')]);
    const { stream } = start([mail, chat]);
    expect(stream.frames.map((f) => [f.event, f.data.id ?? f.data.agent_id])).toEqual([
      ['connected', AGENT.agent_id],
      ['mail_message', 1],
      ['chat_message', 7],
      // Same second: the sources' own order (mail before chat).
      ['mail_message', 2],
      ['chat_message', 8],
    ]);
    expect(stream.frames[0]?.data).toEqual(AGENT);
    expect(mail.calls).toEqual([null]);
  });

  it('pushes new items on a bus nudge, asking each source only for what is after its cursor', async () => {
    const mail = listSource('mail', [item(3, 100)]);
    const control = listSource('control');
    const { bus, stream } = start([mail, control]);
    mail.items.push(item(4, 101));
    control.items.push(item(9, 101, 'control_pause'));
    bus.publish(TOPIC);
    await tick();
    expect(stream.frames.slice(1).map((f) => f.data.id)).toEqual([3, 4, 9]);
    expect(mail.calls).toEqual([null, 3]);
    // An empty snapshot starts the cursor at 0.
    expect(control.calls).toEqual([null, 0]);
    // Nothing new: nothing sent.
    bus.publish(TOPIC);
    await tick();
    expect(stream.frames).toHaveLength(4);
    expect(mail.calls).toEqual([null, 3, 4]);
  });

  it('coalesces nudges of one tick into one read, and ignores other identities', async () => {
    const mail = listSource('mail');
    const { bus } = start([mail]);
    for (let i = 0; i < 5; i++) bus.publish(TOPIC);
    bus.publish(identityTopic('someone-else'));
    await tick();
    expect(mail.calls).toEqual([null, 0]);
  });

  it('falls back to the poll when no nudge comes', async () => {
    const mail = listSource('mail');
    const { stream } = start([mail], { pollMs: 10 });
    mail.items.push(item(5, 100));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(stream.frames.map((f) => f.event)).toEqual(['connected', 'mail_message']);
  });

  it('claims an at-most-once item right before writing it, and skips it when another stream has it', async () => {
    const claims: number[] = [];
    const taken = new Set<number>([21]);
    const claim = (id: number) => () => {
      claims.push(id);
      if (taken.has(id)) return false;
      taken.add(id);
      return true;
    };
    const control = listSource('control', [
      item(20, 100, 'control_pause', { claim: claim(20) }),
      item(21, 100, 'control_resume', { claim: claim(21) }),
      item(22, 100, 'control_interrupt', { claim: claim(22) }),
    ]);
    const { stream } = start([control]);
    expect(stream.frames.map((f) => f.event)).toEqual(['connected', 'control_pause', 'control_interrupt']);
    expect(claims).toEqual([20, 21, 22]);
  });

  it('stops writing (and claiming) once the connection is gone', () => {
    const claims: number[] = [];
    const claimed = (id: number) => ({ claim: () => (claims.push(id), true) });
    const stream = fakeSseStream();
    streams.push(stream);
    // The connection is gone right after `connected`: writes fail from then on.
    const send = stream.send.bind(stream);
    stream.send = (event, data) => (event === 'connected' ? send(event, data) : false);
    const control = listSource('control', [item(30, 100, 'control_pause', claimed(30)), item(31, 100, 'control_pause', claimed(31))]);
    runIdentityStream({ bus: new EventBus(), agent: AGENT, sources: [control], stream, pollMs: NEVER });
    // The first signal was claimed and is lost with the connection; the second is left for another stream.
    expect(claims).toEqual([30]);
  });

  it('ends with an error frame when a source fails, and stops listening', async () => {
    let fail = false;
    const broken: WakeSource = {
      name: 'broken',
      pending: () => {
        if (fail) throw new Error('disk I/O error');
        return [];
      },
    };
    const { bus, stream } = start([broken]);
    expect(bus.listenerCount(TOPIC)).toBe(1);
    fail = true;
    bus.publish(TOPIC);
    await tick();
    expect(stream.frames.map((f) => f.event)).toEqual(['connected', 'error']);
    expect(stream.frames[1]?.data).toEqual({ type: 'error', detail: 'poll failure: disk I/O error' });
    expect(stream.closed).toBe(true);
    expect(bus.listenerCount(TOPIC)).toBe(0);
  });

  it("uses a refusal's own message as the error detail (the identity's check)", () => {
    const { stream } = start([listSource('mail', [item(1, 100)])], {
      check: () => {
        throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', 'Identity is archived');
      },
    });
    expect(stream.frames.map((f) => f.event)).toEqual(['connected', 'error']);
    expect(stream.frames[1]?.data).toEqual({ type: 'error', detail: 'Identity is archived' });
  });

  it("gives every frame the position after it: each source's cursor, null until its snapshot is sent", () => {
    const mail = listSource('mail', [item(1, 100), item(2, 102)]);
    const chat = listSource('chat', [item(7, 101, 'chat_message')]);
    const control = listSource('control');
    const { stream } = start([mail, chat, control]);
    expect(positions(stream)).toEqual([
      // connected: nothing of the snapshot seen yet; the empty source is seen up to where it is.
      { mail: null, chat: null, control: 0 },
      { mail: 1, chat: null, control: 0 },
      { mail: 1, chat: 7, control: 0 },
      { mail: 2, chat: 7, control: 0 },
    ]);
  });

  it('resumes from a position: no snapshot, only what came after each cursor', async () => {
    const mail = listSource('mail', [item(1, 100), item(2, 101), item(3, 105)]);
    const chat = listSource('chat', [item(7, 101, 'chat_message'), item(8, 106, 'chat_message')]);
    const { bus, stream } = start([mail, chat], { resume: { mail: 2, chat: 7 } });
    expect(stream.frames.map((f) => [f.event, f.data.id ?? f.data.agent_id])).toEqual([
      ['connected', AGENT.agent_id],
      ['mail_message', 3],
      ['chat_message', 8],
    ]);
    expect(mail.calls).toEqual([2]);
    expect(positions(stream)[0]).toEqual({ mail: 2, chat: 7 });
    // A source the position does not name (added since) starts with its snapshot.
    const { stream: other } = start([listSource('mail'), listSource('app-events', [item(4, 100, 'docs/doc.changed')])], { resume: { mail: 9 } });
    expect(other.frames.map((f) => f.event)).toEqual(['connected', 'docs/doc.changed']);
    mail.items.push(item(4, 107));
    bus.publish(TOPIC);
    await tick();
    expect(positions(stream).at(-1)).toEqual({ mail: 4, chat: 8 });
  });

  it("keeps each source's own order when creation times disagree with it, so a cursor never skips an item", () => {
    // Mail 6 claims an earlier second than mail 5 (another node's clock): it still comes after 5.
    const mail = listSource('mail', [item(5, 103), item(6, 100)]);
    const chat = listSource('chat', [item(9, 101, 'chat_message')]);
    const { stream } = start([mail, chat]);
    expect(stream.frames.slice(1).map((f) => f.data.id)).toEqual([9, 5, 6]);
    expect(positions(stream).slice(1)).toEqual([
      { mail: null, chat: 9 },
      { mail: 5, chat: 9 },
      { mail: 6, chat: 9 },
    ]);
  });

  it('unsubscribes when the stream closes', () => {
    const { bus, stream } = start([listSource('mail')]);
    stream.close();
    expect(bus.listenerCount(TOPIC)).toBe(0);
  });
});
