import { describe, expect, it } from 'vitest';
import { backoffMs, frameJson, openStream, SseParser } from './sse.ts';
import type { SseFrame, StreamState } from './sse.ts';

describe('SseParser', () => {
  it('parses named frames with JSON data and skips comments', () => {
    const parser = new SseParser();
    const frames = parser.push(': keepalive\n\nevent: connected\ndata: {"agent_id":"a"}\n\nevent: mail_message\ndata: {"x":1}\n\n');
    expect(frames).toEqual([
      { event: 'connected', data: '{"agent_id":"a"}' },
      { event: 'mail_message', data: '{"x":1}' },
    ]);
    expect(frameJson<{ x: number }>(frames[1] as SseFrame)).toEqual({ x: 1 });
  });

  it('joins frames split across chunks, at any byte', () => {
    const text = 'event: message\ndata: {"body":"hello"}\n\nevent: read_receipt\ndata: {"up_to_message_id":"m"}\n\n';
    for (let cut = 1; cut < text.length; cut += 1) {
      const parser = new SseParser();
      const frames = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(frames.map((f) => f.event)).toEqual(['message', 'read_receipt']);
    }
  });

  it('handles CRLF and CR line breaks, even split between chunks', () => {
    const parser = new SseParser();
    expect(parser.push('event: a\r\ndata: 1\r')).toEqual([]);
    expect(parser.push('\n\r\nevent: b\rdata: 2\r\r')).toEqual([
      { event: 'a', data: '1' },
      { event: 'b', data: '2' },
    ]);
  });

  it('joins multi-line data, defaults the event name, and ignores unknown fields', () => {
    const parser = new SseParser();
    expect(parser.push('id: 7\ndata: one\ndata:two\nretry: 10\n\n')).toEqual([{ event: 'message', data: 'one\ntwo' }]);
    // An event line without data dispatches nothing, and does not leak into the next frame.
    expect(parser.push('event: ghost\n\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('frameJson returns null for data that is not JSON', () => {
    expect(frameJson({ event: 'message', data: 'not json' })).toBeNull();
  });
});

describe('backoffMs', () => {
  it('doubles from 1 s up to 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});

/** A response whose body streams the given chunks, then ends (or stays open until aborted). */
function sseResponse(chunks: string[], options: { stayOpen?: boolean; signal?: AbortSignal } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (!options.stayOpen) controller.close();
      options.signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(condition()).toBe(true);
}

describe('openStream', () => {
  it('reads frames, and reconnects with a new deadline when the node closes the stream', async () => {
    const urls: string[] = [];
    const auth: string[] = [];
    const frames: SseFrame[] = [];
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const handle = openStream({
      url: (deadline) => `http://node/stream?deadline=${deadline}`,
      token: async () => 'k1',
      now: () => clock,
      sleep: async () => undefined,
      fetch: async (url, init) => {
        urls.push(url);
        auth.push((init?.headers as Record<string, string>)['authorization'] ?? '');
        if (urls.length === 1) {
          clock += 300_000; // the stream lasted its whole window
          return sseResponse(['event: connected\ndata: {}\n\n', 'event: mail_message\ndata: {"n":1}\n\n']);
        }
        return sseResponse(['event: mail_message\ndata: {"n":2}\n\n'], { stayOpen: true, signal: init?.signal ?? undefined });
      },
      onFrame: (frame) => frames.push(frame),
    });
    await until(() => frames.length === 3);
    handle.close();
    expect(frames.map((f) => f.data)).toEqual(['{}', '{"n":1}', '{"n":2}']);
    expect(urls[0]).toBe('http://node/stream?deadline=2026-01-01T00:05:00.000Z');
    expect(urls[1]).toBe('http://node/stream?deadline=2026-01-01T00:10:00.000Z');
    expect(auth).toEqual(['Bearer k1', 'Bearer k1']);
  });

  it('asks for a fresh credential once after a 401', async () => {
    const renews: boolean[] = [];
    const states: StreamState[] = [];
    let calls = 0;
    const handle = openStream({
      url: () => 'http://node/s',
      token: async (renew) => {
        renews.push(renew);
        return renew ? 'fresh' : 'stale';
      },
      sleep: async () => undefined,
      fetch: async (_url, init) => {
        calls += 1;
        const header = (init?.headers as Record<string, string>)['authorization'];
        if (header === 'Bearer stale') return json(401, { detail: 'Invalid API key' });
        return sseResponse([], { stayOpen: true, signal: init?.signal ?? undefined });
      },
      onFrame: () => undefined,
      onState: (state) => states.push(state),
    });
    await until(() => states.includes('open'));
    handle.close();
    expect(renews).toEqual([false, true]);
    expect(calls).toBe(2);
  });

  it('backs off while the node is unreachable, saying so', async () => {
    const sleeps: number[] = [];
    const details: (string | null)[] = [];
    let calls = 0;
    const handle = openStream({
      url: () => 'http://node/s',
      token: async () => 'k',
      sleep: async (ms) => void sleeps.push(ms),
      fetch: async (_url, init) => {
        calls += 1;
        if (calls <= 3) throw new TypeError('Failed to fetch');
        return sseResponse([], { stayOpen: true, signal: init?.signal ?? undefined });
      },
      onFrame: () => undefined,
      onState: (state, detail) => {
        if (state === 'retrying') details.push(detail);
      },
    });
    await until(() => calls === 4);
    handle.close();
    expect(sleeps).toEqual([1000, 2000, 4000]);
    expect(details[0]).toBe('Could not reach the node.');
  });

  it('stops on a 403 or 404 with the node’s words', async () => {
    const states: [StreamState, string | null][] = [];
    let calls = 0;
    openStream({
      url: () => 'http://node/s',
      token: async () => 'k',
      sleep: async () => undefined,
      fetch: async () => {
        calls += 1;
        return json(403, { detail: 'Not a participant in this session' });
      },
      onFrame: () => undefined,
      onState: (state, detail) => states.push([state, detail]),
    });
    await until(() => states.some(([state]) => state === 'stopped'));
    expect(calls).toBe(1);
    expect(states.at(-1)).toEqual(['stopped', 'Not a participant in this session']);
  });

  it('close() aborts the open request and ends the loop', async () => {
    let aborted = false;
    const states: StreamState[] = [];
    const handle = openStream({
      url: () => 'http://node/s',
      token: async () => 'k',
      fetch: async (_url, init) => {
        init?.signal?.addEventListener('abort', () => (aborted = true));
        return sseResponse([], { stayOpen: true, signal: init?.signal ?? undefined });
      },
      onFrame: () => undefined,
      onState: (state) => states.push(state),
    });
    await until(() => states.includes('open'));
    handle.close();
    await until(() => states.at(-1) === 'stopped');
    expect(aborted).toBe(true);
  });
});
