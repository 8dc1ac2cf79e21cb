/**
 * The one loop behind every live reader of the node: the identity event stream, chat session
 * streams, the owner's feed (and its in-process twin, RunningNode.onWake), and an MCP
 * send-and-wait. A publish on the reader's bus topics runs a pass on the next turn: the writer's
 * response is not held up by its readers, and a burst of publishes is one pass. A poll every
 * second is only the fallback for a missed nudge. The reader supplies just `deliver()`: what is
 * new since its last pass, read by its own query (the bus carries nudges, not data).
 *
 * On an SSE stream the pump also sends a `: keepalive` comment every 25 s (proxies and clients
 * drop connections that stay silent; the listener may set a shorter interval, http/sse.ts), ends
 * the stream with an `error` frame when a pass fails (carrying the stream's last position as its
 * id, as every frame does), and stops when the stream closes, whoever closes it.
 */
import type { StreamError } from '../../contract/core/events.ts';
import { ServiceError } from '../errors.ts';
import type { SseStream } from '../http/sse.ts';
import type { EventBus } from './bus.ts';

export const POLL_INTERVAL_MS = 1000;
/** Below the 30 s idle timeouts common in proxies: the default of every stream. */
export { KEEPALIVE_INTERVAL_MS } from '../http/sse.ts';
export const KEEPALIVE_COMMENT = 'keepalive';

/** `topics` for a node-wide reader: every publish nudges it. */
export const EVERY_TOPIC = Symbol('every topic');

export interface PumpOptions {
  bus: EventBus;
  topics: readonly string[] | typeof EVERY_TOPIC;
  /**
   * One pass: reads and hands on what is new since the last. `nudges` are the topics published
   * since the last pass, in order, repeats included (empty when the poll found nothing nudged).
   */
  deliver(nudges: readonly string[]): void;
  /** A pass threw: the pump has stopped. */
  onError(error: unknown): void;
  pollMs?: number;
}

export interface Pump {
  /** Runs a pass now: a reader's first snapshot. */
  pass(): void;
  /** Stops listening and polling; idempotent. */
  stop(): void;
}

export function startPump({ bus, topics, deliver, onError, pollMs = POLL_INTERVAL_MS }: PumpOptions): Pump {
  let stopped = false;
  let nudges: string[] = [];
  let scheduled = false;

  const pass = (): void => {
    if (stopped) return;
    const since = nudges;
    nudges = [];
    try {
      deliver(since);
    } catch (error) {
      stop();
      onError(error);
    }
  };
  const nudge = (topic: string): void => {
    if (stopped) return;
    nudges.push(topic);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pass();
    });
  };

  const unsubscribes = topics === EVERY_TOPIC ? [bus.subscribeAll(nudge)] : topics.map((topic) => bus.subscribe(topic, () => nudge(topic)));
  const poll = setInterval(pass, pollMs);
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    nudges = [];
    for (const unsubscribe of unsubscribes) unsubscribe();
    clearInterval(poll);
  };
  return { pass, stop };
}

export interface StreamPumpOptions extends Omit<PumpOptions, 'onError'> {
  /** The keepalive interval; the stream's own (its listener's setting) by default. */
  keepaliveMs?: number;
}

/** Pumps `stream` until it closes: `deliver` writes the frames. */
export function pumpStream(stream: SseStream, { keepaliveMs = stream.keepaliveMs, ...options }: StreamPumpOptions): Pump {
  const pump = startPump({ ...options, onError: (error) => failStream(stream, error) });
  const keepalive = setInterval(() => stream.comment(KEEPALIVE_COMMENT), keepaliveMs);
  stream.onClose(() => {
    pump.stop();
    clearInterval(keepalive);
  });
  return pump;
}

/**
 * A failed pass ends the stream with an `error` frame; the client reconnects. A refusal (the
 * identity was archived meanwhile) is the stream's answer and says why; anything else is a fault,
 * logged.
 */
function failStream(stream: SseStream, error: unknown): void {
  let detail: string;
  if (error instanceof ServiceError) detail = error.message;
  else {
    stream.log.error({ err: error }, 'stream pass failed');
    detail = `poll failure: ${error instanceof Error ? error.message : String(error)}`;
  }
  stream.send('error', { type: 'error', detail } satisfies StreamError);
  stream.close();
}
