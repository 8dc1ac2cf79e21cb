/**
 * Server-sent events over `fetch`: the node's streams need `Authorization: Bearer …`, which the
 * browser's EventSource cannot send. One small module: a pure frame parser, and `openStream`, a
 * loop that connects, reads frames until the node closes the stream at its deadline (at most
 * 300 s after opening), and connects again; with backoff when the node cannot be reached, one
 * fresh credential after a 401, and a stop on answers that will not change (403, 404).
 */
import { ApiError, errorMessage } from './errors.ts';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface SseFrame {
  /** The `event:` name; "message" when the frame had none (as EventSource does). */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

/**
 * Incremental parser (WHATWG "event stream interpretation", minus `id` and `retry`: the node sends
 * them for EventSource clients, but `openStream` opens every connection afresh with its own
 * deadline and backoff): feed it text chunks as they arrive, get back the complete frames.
 */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  /** A chunk that ended in "\r": a following "\n" belongs to the same line break. */
  #pendingCr = false;

  push(chunk: string): SseFrame[] {
    let text = chunk;
    if (this.#pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCr = text.endsWith('\r');
    this.#buffer += text;
    const frames: SseFrame[] = [];
    const lines = this.#buffer.split(/\r\n|\n|\r/);
    this.#buffer = lines.pop() ?? '';
    for (const line of lines) {
      const frame = this.#line(line);
      if (frame !== null) frames.push(frame);
    }
    return frames;
  }

  #line(line: string): SseFrame | null {
    if (line === '') {
      if (this.#data.length === 0) {
        this.#event = '';
        return null;
      }
      const frame = { event: this.#event || 'message', data: this.#data.join('\n') };
      this.#event = '';
      this.#data = [];
      return frame;
    }
    if (line.startsWith(':')) return null; // a comment (keepalive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    return null;
  }
}

/** Parses a frame's JSON data; null when it is not JSON (the frame is then ignored). */
export function frameJson<T>(frame: SseFrame): T | null {
  try {
    return JSON.parse(frame.data) as T;
  } catch {
    return null;
  }
}

export type StreamState = 'connecting' | 'open' | 'retrying' | 'stopped';

export interface StreamOptions {
  /** The URL to open, given the deadline to ask for (RFC 3339). Called for every connection. */
  url: (deadline: string) => string;
  /** The bearer token; `renew` is true right after the node answered 401. */
  token: (renew: boolean) => Promise<string>;
  fetch: FetchLike;
  onFrame: (frame: SseFrame) => void;
  /** The connection's state, with a sentence when it is not open. */
  onState?: (state: StreamState, detail: string | null) => void;
  /** How long each connection asks to stay open; the node caps it at 300 s. */
  windowSeconds?: number;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface StreamHandle {
  close(): void;
}

/** 1 s, 2 s, 4 s … up to 30 s. */
export function backoffMs(failures: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

async function bodyMessage(response: Response): Promise<string> {
  let body: unknown;
  try {
    body = JSON.parse(await response.text()) as unknown;
  } catch {
    body = null;
  }
  return errorMessage(response.status, body);
}

/** Opens the stream and keeps it open until `close()`. */
export function openStream(options: StreamOptions): StreamHandle {
  const controller = new AbortController();
  const { signal } = controller;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const windowSeconds = options.windowSeconds ?? 300;
  const report = (state: StreamState, detail: string | null = null): void => {
    if (!signal.aborted || state === 'stopped') options.onState?.(state, detail);
  };

  async function run(): Promise<void> {
    let failures = 0;
    let renew = false;
    let renewedAfter401 = false;
    while (!signal.aborted) {
      report('connecting');
      let response: Response;
      try {
        const token = await options.token(renew);
        const deadline = new Date(now() + windowSeconds * 1000).toISOString();
        response = await options.fetch(options.url(deadline), {
          method: 'GET',
          headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
          credentials: 'omit',
          cache: 'no-store',
          signal,
        });
      } catch (error) {
        // close() may have aborted it during the await; the types do not see that.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (signal.aborted) break;
        failures += 1;
        // A failed key mint arrives here too, with the node's words.
        const detail = error instanceof ApiError ? error.message : 'Could not reach the node.';
        report('retrying', detail);
        await sleep(backoffMs(failures), signal);
        continue;
      }
      renew = false;
      if (response.status === 401) {
        // One fresh credential right away; after that, the same with backoff.
        renew = true;
        if (!renewedAfter401) {
          renewedAfter401 = true;
          continue;
        }
        failures += 1;
        report('retrying', await bodyMessage(response));
        await sleep(backoffMs(failures), signal);
        continue;
      }
      if (response.status === 403 || response.status === 404) {
        report('stopped', await bodyMessage(response));
        return;
      }
      if (!response.ok || response.body === null) {
        failures += 1;
        report('retrying', response.ok ? 'The node sent an empty stream.' : await bodyMessage(response));
        await sleep(backoffMs(failures), signal);
        continue;
      }
      renewedAfter401 = false;
      failures = 0;
      report('open');
      const opened = now();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const frame of parser.push(value)) options.onFrame(frame);
        }
      } catch {
        // Aborted by close(), or the connection dropped: either way, the loop decides.
      } finally {
        reader.releaseLock();
      }
      // close() may have aborted it while the stream was read; the types do not see that across the awaits.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (signal.aborted) break;
      // The node closed it at the deadline: connect again now. A stream that ended early
      // (a restart, a proxy) waits a moment first, so a flapping node is not hammered.
      if (now() - opened < 5_000) {
        failures += 1;
        report('retrying', 'The connection to the node was interrupted.');
        await sleep(backoffMs(failures), signal);
      }
    }
    report('stopped');
  }

  void run();
  return {
    close: () => controller.abort(),
  };
}
