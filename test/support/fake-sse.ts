/**
 * An in-memory SseStream for unit tests of what drives a stream (server/events/stream-pump.ts and
 * its readers): it records the frames, comments and logged failures, and closes like the real one.
 */
import { KEEPALIVE_INTERVAL_MS, type SseStream } from '../../server/http/sse.ts';

export interface FakeSseStream extends SseStream {
  /** Each frame, with the `id` it carried when the stream had a position. */
  frames: { event: string; data: any; id?: string }[];
  comments: string[];
  errors: unknown[];
}

export function fakeSseStream(): FakeSseStream {
  const frames: { event: string; data: any; id?: string }[] = [];
  const comments: string[] = [];
  const errors: unknown[] = [];
  const listeners: (() => void)[] = [];
  let closed = false;
  const stream: FakeSseStream = {
    frames,
    comments,
    errors,
    position: null,
    keepaliveMs: KEEPALIVE_INTERVAL_MS,
    send(event, data, id) {
      if (closed) return false;
      if (id !== undefined) stream.position = id;
      frames.push(stream.position === null ? { event, data } : { event, data, id: stream.position });
      return true;
    },
    comment(text) {
      if (!closed) comments.push(text);
    },
    get closed() {
      return closed;
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
    close() {
      if (closed) return;
      closed = true;
      for (const listener of listeners.splice(0)) listener();
    },
    log: { error: (fields: { err?: unknown }) => void errors.push(fields.err) },
  };
  return stream;
}
