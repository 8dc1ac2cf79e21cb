/** The owner's live feed store: when it tells the views to re-read what they show. */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeClient } from '../api/owner.ts';
import type { FetchLike } from '../api/sse.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';

/** A node whose feed sends `frames` once and then stays open (until the client closes it). */
function feedSending(frames: string): FetchLike {
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

beforeEach(() => setActivePinia(createPinia()));
afterEach(() => useLiveStore().stop());

describe('live store', () => {
  it('has the views reload when the feed opens, and again when the node says it missed items (`reset`)', async () => {
    const frames = 'retry: 1000\n\nevent: connected\ndata: {"node_id":"n"}\n\nevent: reset\ndata: {"type":"reset","detail":"too far back"}\n\n';
    useSessionStore().client = new NodeClient({ coreUrl: 'http://n', token: 'T', mode: 'browser', fetch: feedSending(frames) });
    const live = useLiveStore();
    let reloads = 0;
    live.onOpen(() => reloads++);
    live.start();
    await expect.poll(() => reloads).toBe(2);
    expect(live.state).toBe('open');
  });

  it('does not reload on ordinary frames', async () => {
    const frames = 'event: connected\ndata: {"node_id":"n"}\n\nevent: tunnel_changed\ndata: {}\n\n';
    useSessionStore().client = new NodeClient({ coreUrl: 'http://n', token: 'T', mode: 'browser', fetch: feedSending(frames) });
    const live = useLiveStore();
    let reloads = 0;
    let changes = 0;
    live.onOpen(() => reloads++);
    live.onChange(() => changes++);
    live.start();
    await expect.poll(() => changes).toBe(1);
    expect(reloads).toBe(1);
  });
});
