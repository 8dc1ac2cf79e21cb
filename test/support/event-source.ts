/**
 * The `eventsource` package (a WHATWG EventSource for Node) as a test client of the node's
 * streams. Its documented `fetch` option adds the `Authorization` header the node needs, and
 * stands between it and the network the way a proxy does: `down()` cuts the open connection (the
 * node sees it close; the client sees a network error, not a close() of its own) and fails new
 * ones until `up()`. Everything else is the package's own: `retry:`, `Last-Event-ID`, reconnects,
 * and stopping on a 204.
 */
import { EventSource, type EventSourceFetchInit, type FetchLikeResponse } from 'eventsource';

export interface ReceivedEvent {
  type: string;
  data: any;
  /** The EventSource's `lastEventId` for this event: the frame's `id:`. */
  lastEventId: string;
}

export interface StreamRequest {
  /** The `Last-Event-ID` header the client sent; undefined when it sent none. */
  lastEventId: string | undefined;
  /** The node's status; null while the link was down (the request never reached it). */
  status: number | null;
}

export class TestEventSource {
  readonly events: ReceivedEvent[] = [];
  readonly requests: StreamRequest[] = [];
  /** Each `error` event's HTTP status (undefined for a dropped connection). */
  readonly errors: (number | undefined)[] = [];
  readonly source: EventSource;
  #down = false;
  readonly #open = new Set<() => void>();

  constructor(url: string, token: string, types: readonly string[]) {
    this.source = new EventSource(url, { fetch: (input, init) => this.#fetch(input, init, token) });
    for (const type of types) {
      this.source.addEventListener(type, (event: MessageEvent) => {
        // The node's `error` frame shares its name with EventSource's own error events, which carry no data.
        if (typeof event.data !== 'string') return;
        this.events.push({ type, data: JSON.parse(event.data), lastEventId: event.lastEventId });
      });
    }
    this.source.addEventListener('error', (event) => void this.errors.push(event.code));
  }

  async #fetch(input: string | URL, init: EventSourceFetchInit, token: string): Promise<FetchLikeResponse> {
    const request: StreamRequest = { lastEventId: init.headers['Last-Event-ID'], status: null };
    this.requests.push(request);
    if (this.#down) throw new TypeError('fetch failed');
    const link = new AbortController();
    (init.signal as AbortSignal | undefined)?.addEventListener('abort', () => link.abort(), { once: true });
    const response = await fetch(input, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` }, signal: link.signal });
    request.status = response.status;
    if (response.status !== 200 || response.body === null) return response;
    const reader = response.body.getReader();
    let cut: (error: Error) => void = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        cut = (error) => controller.error(error);
      },
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const drop = (): void => {
      cut(new TypeError('terminated'));
      link.abort();
    };
    this.#open.add(drop);
    return new Response(body, { status: response.status, headers: response.headers });
  }

  /** Cuts the open connection; reconnects fail until up(). */
  down(): void {
    this.#down = true;
    for (const drop of this.#open) drop();
    this.#open.clear();
  }

  up(): void {
    this.#down = false;
  }

  /** The events of `type`, in order. */
  of(type: string): ReceivedEvent[] {
    return this.events.filter((event) => event.type === type);
  }

  /** Waits until `condition` holds; fails after `ms`. */
  async until(condition: (self: this) => boolean, ms = 5000): Promise<void> {
    const limit = Date.now() + ms;
    while (!condition(this)) {
      if (Date.now() > limit)
        throw new Error(`timed out; events so far: ${JSON.stringify(this.events.map((e) => e.type))}, requests: ${JSON.stringify(this.requests)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  close(): void {
    this.source.close();
    for (const drop of this.#open) drop();
    this.#open.clear();
  }
}
