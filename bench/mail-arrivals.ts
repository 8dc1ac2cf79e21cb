/**
 * Mail arriving at identities, seen the way their clients see it: each identity's event stream,
 * followed as EventSource follows it. When a stream ends (the node's 300 s cap, or the node
 * stopping) it is opened again with the last frame's id as `Last-Event-ID`, retrying while the
 * node is down, so what arrived in between still comes, once. The benchmarks that wait minutes
 * for a backlog, or restart a node, count on that.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { connectSse, deadlineIn, type SseClient } from '../test/support/sse.ts';

/** How soon a stream that ended or could not connect is tried again. */
const RECONNECT_MS = 50;
/** How long one stream asks to stay open (the node caps it at 300 s). */
const STREAM_SECONDS = 290;

export class MailArrivals {
  /** performance.now() at the first frame of every message, by message_id. */
  readonly arrived = new Map<string, number>();
  readonly #url: string;
  readonly #streams = new Set<SseClient>();
  readonly #followers: Promise<void>[] = [];
  readonly #waiters = new Set<() => void>();
  #closed = false;
  #failure: Error | null = null;

  /** Resolves once every identity's stream has sent `connected`. */
  static async open(url: string, identities: readonly { agent_id: string; api_key: string }[]): Promise<MailArrivals> {
    const arrivals = new MailArrivals(url);
    await Promise.all(identities.map((identity) => new Promise<void>((connected) => arrivals.#followers.push(arrivals.#follow(identity, connected)))));
    if (arrivals.#failure) throw arrivals.#failure;
    return arrivals;
  }

  private constructor(url: string) {
    this.#url = url;
  }

  /** When `messageId` arrived; fails after `timeoutMs`. */
  async waitFor(messageId: string, timeoutMs: number): Promise<number> {
    if (!(await this.#until(() => this.arrived.has(messageId), timeoutMs))) throw new Error(`${messageId} did not arrive within ${timeoutMs} ms`);
    return this.arrived.get(messageId)!;
  }

  /** True once `count` messages have arrived, false if they have not within `timeoutMs`. */
  waitForCount(count: number, timeoutMs: number): Promise<boolean> {
    return this.#until(() => this.arrived.size >= count, timeoutMs);
  }

  /** The latest arrival time among `messageIds` that arrived. */
  lastArrival(messageIds: Iterable<string>): number {
    let last = 0;
    for (const id of messageIds) last = Math.max(last, this.arrived.get(id) ?? 0);
    return last;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const stream of this.#streams) stream.close();
    await Promise.all(this.#followers);
  }

  async #until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      if (this.#failure) throw this.#failure;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
    return true;
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  /** Follows one identity's stream until close(); `connected` is called at its first `connected` frame (or when it gives up). */
  async #follow(identity: { agent_id: string; api_key: string }, connected: () => void): Promise<void> {
    let lastId: string | undefined;
    try {
      while (!this.#closed) {
        const stream = await this.#connect(identity.api_key, lastId);
        if (stream === null) {
          await sleep(RECONNECT_MS);
          continue;
        }
        this.#streams.add(stream);
        // close() may have run while this awaited the connection; the types do not see that across the await.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (this.#closed) stream.close();
        // SseClient queues frames in the order of its `ids`: the n-th frame taken has the n-th id.
        let taken = 0;
        for (let frame = await stream.maybeNext(1000); frame !== null || !stream.ended; frame = await stream.maybeNext(1000)) {
          if (frame === null) continue;
          lastId = stream.ids[taken++] ?? lastId;
          if (frame.event === 'connected') connected();
          if (frame.event === 'mail_message' && !this.arrived.has(frame.data.message_id)) {
            this.arrived.set(frame.data.message_id, frame.receivedAt);
            this.#wake();
          }
        }
        this.#streams.delete(stream);
      }
    } finally {
      connected();
    }
  }

  /** The stream, or null when the node cannot be reached now; a refusal is a failure of the run. */
  async #connect(token: string, lastId: string | undefined): Promise<SseClient | null> {
    const url = `${this.#url}/v1/events/stream?deadline=${encodeURIComponent(deadlineIn(STREAM_SECONDS))}`;
    try {
      const response = await connectSse(url, { token, ...(lastId === undefined ? {} : { headers: { 'last-event-id': lastId } }) });
      if (response.stream) return response.stream;
      this.#failure = new Error(`event stream refused: ${response.status} ${JSON.stringify(response.body)}`);
      this.#closed = true;
      this.#wake();
      return null;
    } catch {
      return null;
    }
  }
}
