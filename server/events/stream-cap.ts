/**
 * How many live streams one holder may keep open at once: an identity's event streams (whatever
 * it authenticated with: its API keys, session keys, or a team certificate), or the owner's feeds.
 * Each open stream holds a socket, a descriptor, buffers and a poll, so an unbounded number of
 * them is memory and CPU for the taking by anyone with one key.
 *
 * Clients open one or two streams per identity (upstream's CLI and channel client keep one; a
 * second comes from a reconnect that overlaps the stream it replaces), so the cap sits well above
 * that and still bounds the cost: {@link STREAMS_PER_HOLDER}. A new stream beyond it is admitted
 * and the holder's oldest is closed: the newest is the one its client is reading, and a stream
 * left behind by a client that lost track of it goes first. The closed stream gets a
 * `superseded` frame and then a normal end of the response, so the client sees a finished
 * stream (EventSource reconnects after its `retry:`), not a network error.
 */
import type { StreamSuperseded } from '../../contract/core/events.ts';
import type { SseStream } from '../http/sse.ts';

/** Open streams per identity (and for the owner's feed). */
export const STREAMS_PER_HOLDER = 8;

export class StreamCap {
  readonly #limit: number;
  readonly #open = new Map<string, SseStream[]>();

  constructor(limit: number = STREAMS_PER_HOLDER) {
    this.#limit = limit;
  }

  /** Counts `stream` as one of `holder`'s until it closes; closes the holder's oldest beyond the cap. */
  admit(holder: string, stream: SseStream): void {
    if (stream.closed) return;
    const open = this.#open.get(holder) ?? [];
    open.push(stream);
    this.#open.set(holder, open);
    stream.onClose(() => {
      const index = open.indexOf(stream);
      if (index >= 0) open.splice(index, 1);
      if (open.length === 0 && this.#open.get(holder) === open) this.#open.delete(holder);
    });
    while (open.length > this.#limit) {
      const oldest = open.shift();
      if (oldest === undefined) break;
      oldest.send('superseded', {
        type: 'superseded',
        detail: `A newer stream was opened: at most ${this.#limit} stay open at once, and the oldest closes first`,
        limit: this.#limit,
      } satisfies StreamSuperseded);
      oldest.close();
    }
  }

  /** The holder's open streams (tests, diagnostics). */
  openCount(holder: string): number {
    return this.#open.get(holder)?.length ?? 0;
  }
}
