/**
 * Server-sent event streams, shared by every live stream (the identity event stream, chat session
 * streams, the owner's feed), which events/stream-pump.ts drives. Each response starts with
 * `retry: <ms>`; each frame is `id: <position>\nevent: <name>\ndata: <one-line JSON>\n\n`, the id
 * being where the stream stands once the client has the frame (events/stream-ids.ts), so
 * EventSource resumes with `Last-Event-ID` after a drop.
 *
 * A stream lasts until the caller's `deadline` (spec §6), at most 300 s. When the caller's own
 * deadline ends it, the last frame is `deadline`; a reconnect after it (EventSource sends the same
 * URL again, with `Last-Event-ID`) is answered 204 No Content, which tells an EventSource client
 * to stop. When the 300 s cap ends it first, it closes without that frame, and the client's
 * reconnect resumes where it stopped.
 *
 * Each stream declares its frames, by event name (contract/), and each frame leaves as its schema
 * parses it (sse-frames.ts): undeclared keys are dropped, and in the test suites they end the
 * stream with an `error` frame naming them.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamError, type StreamDeadline } from '../../contract/core/events.ts';
import { invalid } from '../errors.ts';
import { parseRfc3339 } from '../crypto/timestamp.ts';
import { frameWriter, type FrameSchemas } from './sse-frames.ts';

export const MAX_STREAM_SECONDS = 300;
/** How long EventSource waits before it reconnects (`retry:`): the cap ends every stream every 300 s. */
export const RETRY_MS = 1000;
/** Below the 30 s idle timeouts common in proxies (events/stream-pump.ts sends them). */
export const KEEPALIVE_INTERVAL_MS = 25_000;

/** The listener's stream timing (tests shorten it). */
export interface StreamTiming {
  keepaliveMs: number;
  retryMs: number;
}

/** How the listener's streams treat their frames. */
export interface StreamOptions extends Partial<StreamTiming> {
  /** A frame outside its contract ends its stream (the test suites); production sends its declared part. */
  strictFrames?: boolean | undefined;
}

export interface SseStream {
  /**
   * Writes one frame, as the stream's declared schema for `event` parses it; false once the
   * connection is gone (the frame was not sent). `id` is the stream's position after this frame;
   * without it the frame repeats the current position.
   */
  send(event: string, data: unknown, id?: string): boolean;
  comment(text: string): void;
  /** The position the next frame without an id of its own carries (null: no `id:` line). */
  position: string | null;
  /** How often the stream's pump sends a keepalive comment. */
  readonly keepaliveMs: number;
  readonly closed: boolean;
  /** Runs once when the stream ends, whoever ends it. */
  onClose(listener: () => void): void;
  close(): void;
  /** The request's logger: whatever drives the stream reports its failures here. */
  readonly log: Pick<FastifyBaseLogger, 'error'>;
}

/**
 * The stream's end: the `deadline` query (RFC 3339), required, capped at now + 300 s.
 * A deadline already past is refused: the stream would be empty.
 */
export function streamDeadline(value: unknown, now: Date, required = true): Date {
  const cap = now.getTime() + MAX_STREAM_SECONDS * 1000;
  if (value === undefined && !required) return new Date(cap);
  const issue = (msg: string) => invalid('SVC_ERR_VALIDATION', [{ loc: ['query', 'deadline'], msg, type: 'value_error' }]);
  if (value === undefined || value === '') throw issue('deadline is required: an RFC 3339 timestamp at most 300 s ahead');
  const ms = parseRfc3339(value);
  if (ms === null) throw issue('deadline must be an RFC 3339 timestamp with a timezone');
  if (ms <= now.getTime()) throw issue('deadline is in the past');
  return new Date(Math.min(ms, cap));
}

/** When a stream closes, and whether that is the caller's deadline (then the last frame says so). */
export interface StreamWindow {
  closesAt: Date;
  /** The caller's deadline when it comes before the 300 s cap; null when the cap ends the stream. */
  deadline: Date | null;
}

/**
 * The window of a stream request, checked before it opens (422 as streamDeadline refuses); null
 * for a reconnect (it sends `Last-Event-ID`) whose deadline has passed: answer it with
 * {@link endOfStream}.
 */
export function streamWindow(request: FastifyRequest, value: unknown, now: Date): StreamWindow | null {
  const ms = parseRfc3339(value);
  const lastEventId = request.headers['last-event-id'];
  if (ms !== null && ms <= now.getTime() && lastEventId !== undefined && lastEventId !== '') return null;
  const closesAt = streamDeadline(value, now);
  return { closesAt, deadline: closesAt.getTime() === ms ? closesAt : null };
}

/** 204 No Content: the stream is over for good (EventSource stops reconnecting). */
export function endOfStream(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

const OPEN_STREAMS = Symbol('svc.openSseStreams');
const TIMING = Symbol('svc.sseTiming');
const STRICT_FRAMES = Symbol('svc.sseStrictFrames');

declare module 'fastify' {
  interface FastifyInstance {
    [OPEN_STREAMS]: Set<SseStream>;
    [TIMING]: StreamTiming;
    [STRICT_FRAMES]: boolean;
  }
}

/**
 * Open streams end when their listener closes, instead of holding `close()` until their
 * deadlines (up to 300 s). Installed once per app; every plugin shares the set and the timing.
 */
export function installSse(app: FastifyInstance, { strictFrames = false, ...timing }: StreamOptions = {}): void {
  const open = new Set<SseStream>();
  app.decorate(OPEN_STREAMS, open);
  app.decorate(TIMING, { keepaliveMs: timing.keepaliveMs ?? KEEPALIVE_INTERVAL_MS, retryMs: timing.retryMs ?? RETRY_MS });
  app.decorate(STRICT_FRAMES, strictFrames);
  app.addHook('preClose', (done) => {
    for (const stream of open) stream.close();
    done();
  });
}

/** Opens the stream of `request`, whose frames are `frames` (every one it may send, by event name). */
export function openSse(request: FastifyRequest, reply: FastifyReply, window: StreamWindow, frames: FrameSchemas): SseStream {
  const { keepaliveMs, retryMs } = request.server[TIMING];
  const strict = request.server[STRICT_FRAMES];
  const frame = frameWriter(frames, strict, request.log);
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    // Headers set by hooks before the hijack (CORS) still apply.
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  res.write(`retry: ${retryMs}\n\n`);

  const write = (event: string, json: string): boolean => {
    const idLine = stream.position === null ? '' : `id: ${stream.position}\n`;
    return res.write(`${idLine}event: ${event}\ndata: ${json}\n\n`);
  };
  const listeners: (() => void)[] = [];
  let closed = false;
  const finish = (): void => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    for (const listener of listeners.splice(0)) listener();
    if (!res.writableEnded) res.end();
  };
  const atDeadline = (): void => {
    if (window.deadline !== null) stream.send('deadline', { type: 'deadline', deadline: window.deadline.toISOString() } satisfies StreamDeadline);
    finish();
  };
  const timer = setTimeout(atDeadline, Math.max(0, window.closesAt.getTime() - Date.now()));
  request.raw.on('close', finish);
  res.on('close', finish);

  const stream: SseStream = {
    position: null,
    keepaliveMs,
    send(event, data, id) {
      if (closed || res.destroyed) return false;
      const written = frame(event, data);
      if ('refused' in written) {
        // Production leaves the frame out and goes on; the test suites end the stream saying why.
        if (!strict) return true;
        write('error', JSON.stringify(StreamError.parse({ type: 'error', detail: written.refused })));
        finish();
        return false;
      }
      if (id !== undefined) stream.position = id;
      return write(event, written.json) || !res.destroyed;
    },
    comment(text) {
      if (!closed && !res.destroyed) res.write(`: ${text}\n\n`);
    },
    get closed() {
      return closed;
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
    close: finish,
    log: request.log,
  };
  const open = request.server[OPEN_STREAMS];
  open.add(stream);
  stream.onClose(() => open.delete(stream));
  return stream;
}
