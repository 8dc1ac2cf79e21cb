/**
 * For the client and store tests: a node's event stream as `fetch` answers it, sending the given
 * SSE frames once and then staying open until the client closes it (as the owner feed does).
 */
import type { FetchLike } from './sse.ts';

export function feedSending(frames: string): FetchLike {
  return async (_url, init) => {
    const signal = init?.signal;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(frames));
        signal?.addEventListener('abort', () => controller.close());
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}
