/**
 * An in-memory SseStream for unit tests of what drives a stream (server/events/stream-pump.ts and
 * its readers): it records the frames, comments and logged failures, and closes like the real one.
 */
import type { SseStream } from '../../server/http/sse.ts';

export interface FakeSseStream extends SseStream {
  frames: { event: string; data: any }[];
  comments: string[];
  errors: unknown[];
}

export function fakeSseStream(): FakeSseStream {
  const frames: { event: string; data: any }[] = [];
  const comments: string[] = [];
  const errors: unknown[] = [];
  const listeners: (() => void)[] = [];
  let closed = false;
  return {
    frames,
    comments,
    errors,
    send(event, data) {
      if (closed) return false;
      frames.push({ event, data });
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
}
