/**
 * Server-sent event streams: `event: <name>\ndata: <one-line JSON>\n\n`, closed by the server at
 * the caller's deadline (spec §6: capped at 300 s; clients reconnect). Shared by every live
 * stream (the identity event stream, chat session streams, the owner's feed), which
 * events/stream-pump.ts drives.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalid } from '../errors.ts';
import { parseRfc3339 } from '../crypto/timestamp.ts';

export const MAX_STREAM_SECONDS = 300;

export interface SseStream {
  /** Writes one frame; false once the connection is gone (the frame was not sent). */
  send(event: string, data: unknown): boolean;
  comment(text: string): void;
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

const OPEN_STREAMS = Symbol('svc.openSseStreams');

declare module 'fastify' {
  interface FastifyInstance {
    [OPEN_STREAMS]: Set<SseStream>;
  }
}

/**
 * Open streams end when their listener closes, instead of holding `close()` until their
 * deadlines (up to 300 s). Installed once per app; every plugin shares the set.
 */
export function installSse(app: FastifyInstance): void {
  const open = new Set<SseStream>();
  app.decorate(OPEN_STREAMS, open);
  app.addHook('preClose', (done) => {
    for (const stream of open) stream.close();
    done();
  });
}

export function openSse(request: FastifyRequest, reply: FastifyReply, deadline: Date): SseStream {
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
  res.flushHeaders();

  const listeners: (() => void)[] = [];
  let closed = false;
  const finish = (): void => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    for (const listener of listeners.splice(0)) listener();
    if (!res.writableEnded) res.end();
  };
  const timer = setTimeout(finish, Math.max(0, deadline.getTime() - Date.now()));
  request.raw.on('close', finish);
  res.on('close', finish);

  const stream: SseStream = {
    send(event, data) {
      if (closed || res.destroyed) return false;
      return res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`) || !res.destroyed;
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
