import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeSseStream } from '../../test/support/fake-sse.ts';
import { conflict } from '../errors.ts';
import { EventBus } from './bus.ts';
import { EVERY_TOPIC, KEEPALIVE_INTERVAL_MS, POLL_INTERVAL_MS, pumpStream, startPump, type Pump, type PumpOptions } from './stream-pump.ts';

const NEVER = 60_000; // an interval no test waits for: what happens came from a nudge
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const pumps: Pump[] = [];
afterEach(() => {
  for (const pump of pumps.splice(0)) pump.stop();
});

/** A pump that records each pass's nudges. */
function recording(options: Partial<PumpOptions> = {}) {
  const bus = new EventBus();
  const passes: string[][] = [];
  const failures: unknown[] = [];
  const pump = startPump({
    bus,
    topics: ['a', 'b'],
    deliver: (nudges) => void passes.push([...nudges]),
    onError: (error) => void failures.push(error),
    pollMs: NEVER,
    ...options,
  });
  pumps.push(pump);
  return { bus, pump, passes, failures };
}

describe('startPump', () => {
  it('is the 1 s poll and the 25 s keepalive', () => {
    expect(POLL_INTERVAL_MS).toBe(1000);
    expect(KEEPALIVE_INTERVAL_MS).toBe(25_000);
  });

  it('runs one pass on the next turn for a burst of nudges, with their topics in order', async () => {
    const { bus, passes } = recording();
    bus.publish('a');
    bus.publish('b');
    bus.publish('a');
    bus.publish('elsewhere');
    // Not during the publish: the writer is not held up by its readers.
    expect(passes).toEqual([]);
    await tick();
    expect(passes).toEqual([['a', 'b', 'a']]);
    bus.publish('b');
    await tick();
    expect(passes).toEqual([['a', 'b', 'a'], ['b']]);
  });

  it('hears every topic when asked for EVERY_TOPIC', async () => {
    const { bus, passes } = recording({ topics: EVERY_TOPIC });
    bus.publish('x');
    bus.publish('y');
    await tick();
    expect(passes).toEqual([['x', 'y']]);
  });

  it('passes now when asked, and polls when no nudge comes', async () => {
    const { pump, passes } = recording({ pollMs: 10 });
    pump.pass();
    expect(passes).toEqual([[]]);
    await sleep(45);
    expect(passes.length).toBeGreaterThanOrEqual(3);
    expect(passes.every((nudges) => nudges.length === 0)).toBe(true);
  });

  it('stops listening and polling when stopped, and ignores a nudge already queued', async () => {
    const { bus, pump, passes } = recording({ pollMs: 10 });
    bus.publish('a');
    pump.stop();
    pump.stop();
    expect(bus.listenerCount('a')).toBe(0);
    await sleep(30);
    pump.pass();
    expect(passes).toEqual([]);
  });

  it('stops at the first failed pass and reports it once', async () => {
    const broken = new Error('disk I/O error');
    const { bus, passes, failures } = recording({
      deliver: () => {
        passes.push([]);
        throw broken;
      },
      pollMs: 10,
    });
    bus.publish('a');
    await tick();
    await sleep(30);
    expect(passes).toHaveLength(1);
    expect(failures).toEqual([broken]);
    expect(bus.listenerCount('a')).toBe(0);
  });
});

describe('pumpStream', () => {
  it('sends a keepalive comment every interval until the stream closes, then stops listening', async () => {
    const bus = new EventBus();
    const stream = fakeSseStream();
    pumpStream(stream, { bus, topics: ['a'], deliver: () => {}, pollMs: NEVER, keepaliveMs: 10 });
    await sleep(35);
    expect(stream.comments.length).toBeGreaterThanOrEqual(2);
    expect(new Set(stream.comments)).toEqual(new Set(['keepalive']));
    stream.close();
    const sent = stream.comments.length;
    await sleep(25);
    expect(stream.comments).toHaveLength(sent);
    expect(bus.listenerCount('a')).toBe(0);
  });

  it("keeps alive at the stream's own interval (its listener's setting) unless told otherwise", async () => {
    const stream = fakeSseStream();
    Object.assign(stream, { keepaliveMs: 10 });
    pumpStream(stream, { bus: new EventBus(), topics: ['a'], deliver: () => {}, pollMs: NEVER });
    await sleep(35);
    expect(stream.comments.length).toBeGreaterThanOrEqual(2);
    stream.close();
  });

  it('gives the error frame the position of the last frame, as every frame has one', () => {
    const stream = fakeSseStream();
    stream.send('seen', {}, 'pos-7');
    pumpStream(stream, {
      bus: new EventBus(),
      topics: ['a'],
      deliver: () => {
        throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', 'Identity is archived');
      },
      pollMs: NEVER,
      keepaliveMs: NEVER,
    }).pass();
    expect(stream.frames.at(-1)).toEqual({ event: 'error', data: { type: 'error', detail: 'Identity is archived' }, id: 'pos-7' });
  });

  it('delivers on a nudge through the stream', async () => {
    const bus = new EventBus();
    const stream = fakeSseStream();
    pumpStream(stream, { bus, topics: ['a'], deliver: (nudges) => void stream.send('seen', { nudges }), pollMs: NEVER, keepaliveMs: NEVER });
    bus.publish('a');
    await tick();
    expect(stream.frames).toEqual([{ event: 'seen', data: { nudges: ['a'] } }]);
    stream.close();
  });

  it('ends the stream with an error frame on a fault, and logs it', async () => {
    const bus = new EventBus();
    const stream = fakeSseStream();
    const fault = new Error('disk I/O error');
    pumpStream(stream, {
      bus,
      topics: ['a'],
      deliver: () => {
        throw fault;
      },
      pollMs: NEVER,
      keepaliveMs: NEVER,
    });
    bus.publish('a');
    await tick();
    expect(stream.frames).toEqual([{ event: 'error', data: { type: 'error', detail: 'poll failure: disk I/O error' } }]);
    expect(stream.closed).toBe(true);
    expect(stream.errors).toEqual([fault]);
    expect(bus.listenerCount('a')).toBe(0);
  });

  it("gives a refusal's own message and does not log it as a fault", () => {
    const stream = fakeSseStream();
    const pump = pumpStream(stream, {
      bus: new EventBus(),
      topics: ['a'],
      deliver: () => {
        throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', 'Identity is archived');
      },
      pollMs: NEVER,
      keepaliveMs: NEVER,
    });
    pump.pass();
    expect(stream.frames).toEqual([{ event: 'error', data: { type: 'error', detail: 'Identity is archived' } }]);
    expect(stream.closed).toBe(true);
    expect(stream.errors).toEqual([]);
  });

  it('stops at once on a stream that is already closed', () => {
    const bus = new EventBus();
    const stream = fakeSseStream();
    stream.close();
    pumpStream(stream, { bus, topics: ['a'], deliver: () => {}, pollMs: NEVER, keepaliveMs: NEVER });
    expect(bus.listenerCount('a')).toBe(0);
  });
});
