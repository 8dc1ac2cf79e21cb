/**
 * Server-sent event streams read the way a client reads them: a GET, then frames parsed from
 * `event: <name>\ndata: <JSON>\n\n` as they arrive, each stamped with its arrival time.
 *
 * node:http on its own connection rather than fetch: closing the stream then closes exactly that
 * connection (fetch's pool opens a spare one after an abort, which holds a stopping node open
 * until its keep-alive runs out).
 */
import { request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ApiResponse } from './node.ts';

export interface SseFrame {
  event: string;
  data: any;
  /** performance.now() when the frame was parsed. */
  receivedAt: number;
}

/** Splits the complete frames off `buffer`; returns them (with their `id:`), the comment lines, `retry:` values, and what is left. */
export function parseSseFrames(buffer: string): {
  frames: { event: string; data: string; id?: string }[];
  comments: string[];
  retries: number[];
  rest: string;
} {
  const frames: { event: string; data: string; id?: string }[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const blocks = buffer.replace(/\r\n/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '') continue;
      if (line.startsWith(':')) {
        comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
      else if (field === 'retry') retries.push(Number(value));
    }
    if (data.length > 0) frames.push({ event, data: data.join('\n'), ...(id === undefined ? {} : { id }) });
  }
  return { frames, comments, retries, rest };
}

export class SseClient {
  /** Every frame received so far, in order (whether or not next() has taken it). */
  readonly frames: SseFrame[] = [];
  /** Every comment line (`: text`) received so far. */
  readonly comments: string[] = [];
  /** The `id:` of each frame in `frames` (same index; undefined for a frame without one). */
  readonly ids: (string | undefined)[] = [];
  /** Every `retry:` value received so far. */
  readonly retries: number[] = [];
  readonly #queue: SseFrame[] = [];
  readonly #waiters: (() => void)[] = [];
  readonly #close: () => void;
  #ended = false;
  /** Resolves when the stream ends: the server closed it, the connection dropped, or close(). */
  readonly done: Promise<void>;

  constructor(body: AsyncIterable<Uint8Array>, close: () => void) {
    this.#close = close;
    this.done = this.#read(body);
  }

  /** True once the stream has ended. */
  get ended(): boolean {
    return this.#ended;
  }

  async #read(body: AsyncIterable<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        const { frames, comments, retries, rest } = parseSseFrames(buffer);
        buffer = rest;
        this.comments.push(...comments);
        this.retries.push(...retries);
        for (const frame of frames) {
          const parsed: SseFrame = { event: frame.event, data: JSON.parse(frame.data), receivedAt: performance.now() };
          this.frames.push(parsed);
          this.ids.push(frame.id);
          this.#queue.push(parsed);
        }
        this.#wake();
      }
    } catch {
      // Aborted by close(), or the connection dropped: either way the stream has ended.
    } finally {
      this.#ended = true;
      this.#wake();
    }
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  /** The next frame not yet taken, or null if none arrives within `ms` (or the stream ends first). */
  async maybeNext(ms: number): Promise<SseFrame | null> {
    const deadline = performance.now() + ms;
    for (;;) {
      const frame = this.#queue.shift();
      if (frame) return frame;
      const left = deadline - performance.now();
      if (this.#ended || left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The next frame not yet taken; fails when none arrives within `ms` or the stream ends. */
  async next(ms = 5000): Promise<SseFrame> {
    const frame = await this.maybeNext(ms);
    if (frame === null) {
      const why = this.#ended ? 'the stream ended' : `nothing arrived within ${ms} ms`;
      throw new Error(`expected a frame, but ${why}; received so far: ${JSON.stringify(this.frames.map((f) => f.event))}`);
    }
    return frame;
  }

  /** The next `count` frames. */
  async take(count: number, ms = 5000): Promise<SseFrame[]> {
    const frames: SseFrame[] = [];
    for (let i = 0; i < count; i++) frames.push(await this.next(ms));
    return frames;
  }

  /** The frames not yet taken, once the server ends the stream; fails if it is still open after `ms`. */
  async untilEnd(ms = 5000): Promise<SseFrame[]> {
    const rest: SseFrame[] = [];
    const limit = performance.now() + ms;
    for (;;) {
      const frame = await this.maybeNext(Math.max(0, limit - performance.now()));
      if (frame) rest.push(frame);
      else if (this.#ended) return rest;
      else throw new Error(`stream still open after ${ms} ms`);
    }
  }

  /** Closes the connection from the client side. */
  close(): void {
    this.#close();
  }
}

export interface SseResponse {
  status: number;
  headers: Headers;
  /** The open stream when the server answered with text/event-stream; null otherwise. */
  stream: SseClient | null;
  /** The parsed JSON body of a refusal (null for a stream). */
  body: any;
}

/** GET `url` as an event-stream client, with a Bearer `token` when given. */
export function connectSse(url: string, options: { token?: string; headers?: Record<string, string> } = {}): Promise<SseResponse> {
  const target = new URL(url);
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: 'GET', headers, agent: false },
      (res) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const status = res.statusCode ?? 0;
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          resolve({ status, headers: responseHeaders, stream: new SseClient(res, () => req.destroy()), body: null });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text === '' ? null : JSON.parse(text);
          } catch {
            // Not JSON: the test sees the text.
          }
          resolve({ status, headers: responseHeaders, stream: null, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A refused stream as an ApiResponse, for expectRefusal. */
export function asApiResponse(response: SseResponse): ApiResponse {
  return { status: response.status, body: response.body, headers: response.headers };
}

/** An RFC 3339 deadline `seconds` from now (fractions allowed). */
export function deadlineIn(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString();
}
