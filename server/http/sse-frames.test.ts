/**
 * Every SSE frame leaves as its stream's contract parses it (sse-frames.ts). A frame source that
 * spreads a row into a frame (a column the contract does not name riding along) is the drift:
 * over real HTTP on loopback, read by a real EventSource, the column never arrives in production,
 * and in the test suites' strict mode the stream ends with an `error` frame naming it.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { IdentityStreamFrames, type MailWakeFrame } from '../../contract/core/events.ts';
import { EventBus } from '../events/bus.ts';
import { pumpStream } from '../events/stream-pump.ts';
import { TestEventSource } from '../../test/support/event-source.ts';
import { installSse, openSse } from './sse.ts';

interface Logged {
  msg: string;
  event?: string;
  problems?: string[];
}

const FRAME: MailWakeFrame = {
  type: 'mail_message',
  message_id: 'm-1',
  from_alias: 'ann',
  from_address: null,
  from_did: 'did:key:z6Mk',
  from_stable_id: null,
  subject: 'hello',
  priority: 'normal',
  wake_mode: 'idle',
  created_at: '2026-12-07T07:00:00.000Z',
  unread_count: 1,
};
/** The row behind the frame: what a source holds, a column no frame declares included. */
const ROW = { ...FRAME, body_ciphertext: 'c2VjcmV0' };

const apps: FastifyInstance[] = [];
const sources: TestEventSource[] = [];
afterEach(async () => {
  for (const source of sources.splice(0)) source.close();
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A loopback node-like app whose one stream's source spreads `ROW` into its mail frames, each time the bus nudges it. */
async function serve(strictFrames: boolean, logged: Logged[]): Promise<{ url: string; bus: EventBus }> {
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => void logged.push(JSON.parse(line) as Logged) } } });
  apps.push(app);
  installSse(app, { strictFrames });
  const bus = new EventBus();
  app.get('/stream', async (request, reply) => {
    const stream = openSse(request, reply, { closesAt: new Date(Date.now() + 30_000), deadline: null }, IdentityStreamFrames);
    stream.send('connected', { agent_id: 'a-1', project_id: 'p-1' }, '1');
    let sent = 1;
    pumpStream(stream, {
      bus,
      topics: ['mail'],
      deliver: (nudges) => {
        for (const _ of nudges) stream.send('mail_message', { ...ROW }, String(++sent));
      },
    });
    return reply;
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `${url}/stream`, bus };
}

function listen(url: string): TestEventSource {
  const source = new TestEventSource(url, 'token', ['connected', 'mail_message', 'error']);
  sources.push(source);
  return source;
}

describe('SSE frames leave as their contract parses them', () => {
  it('in production, drops the column a source spread into a frame, logs it, and keeps the stream going', async () => {
    const logged: Logged[] = [];
    const { url, bus } = await serve(false, logged);
    const client = listen(url);
    await client.until((c) => c.events.length === 1);
    bus.publish('mail');
    await client.until((c) => c.events.length === 2);
    bus.publish('mail');
    await client.until((c) => c.events.length === 3);
    expect(client.events.map((event) => event.type)).toEqual(['connected', 'mail_message', 'mail_message']);
    // Exactly the declared frame: the column never reached the client.
    expect(client.events[1]?.data).toEqual(FRAME);
    expect(client.events[2]?.data).toEqual(FRAME);
    expect(client.events[2]?.lastEventId).toBe('3');
    expect(JSON.stringify(client.events)).not.toContain('c2VjcmV0');
    // A parse that only dropped a key is not an error in production: the frame was what it declares.
    expect(logged).toEqual([]);
  });

  it('in production, sends the declared part of a frame that does not parse, and logs why without its values', async () => {
    const logged: Logged[] = [];
    const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => void logged.push(JSON.parse(line) as Logged) } } });
    apps.push(app);
    installSse(app);
    app.get('/stream', async (request, reply) => {
      const stream = openSse(request, reply, { closesAt: new Date(Date.now() + 30_000), deadline: null }, IdentityStreamFrames);
      stream.send('mail_message', { ...ROW, unread_count: 'many' });
      // A name the stream does not declare has no declared part: left out, and the stream goes on.
      stream.send('mail_raw', ROW);
      stream.send('connected', { agent_id: 'a-1', project_id: 'p-1' });
      return reply;
    });
    const client = listen(`${await app.listen({ host: '127.0.0.1', port: 0 })}/stream`);
    await client.until((c) => c.events.length === 2);
    expect(client.events.map((event) => event.type)).toEqual(['mail_message', 'connected']);
    expect(client.events[0]?.data).toEqual({ ...FRAME, unread_count: 'many' });
    expect(JSON.stringify(logged)).not.toContain('c2VjcmV0');
    expect(logged.map((line) => [line.msg, line.event])).toEqual([
      ['SSE frame outside its contract: sent its declared part', 'mail_message'],
      ['SSE frame outside its contract: not sent', 'mail_raw'],
    ]);
  });

  it('in the test suites, ends the stream with an error frame naming the undeclared column', async () => {
    const logged: Logged[] = [];
    const { url, bus } = await serve(true, logged);
    const client = listen(url);
    await client.until((c) => c.events.length === 1);
    bus.publish('mail');
    await client.until((c) => c.events.length === 2);
    expect(client.events.map((event) => event.type)).toEqual(['connected', 'error']);
    expect(client.events[1]?.data).toEqual({ type: 'error', detail: 'frame "mail_message" outside its contract: body_ciphertext: not declared' });
    expect(logged.map((line) => [line.msg, line.problems])).toEqual([['SSE frame outside its contract: not sent (strict)', ['body_ciphertext: not declared']]]);
  });
});
