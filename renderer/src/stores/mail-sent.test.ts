/**
 * The Sent store's `reveal` (a search hit, a link): a message already listed is selected at once;
 * one the list has not reached is read from the node by id in one request and selected, the list
 * left as it was; one this identity did not send (the node's 404) is false. Through the real
 * NodeClient and MailClient over a fake fetch, so the requests are the wire's.
 */
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SentMail } from '../api/mail.ts';
import { NodeClient } from '../api/owner.ts';
import type { FetchLike } from '../api/sse.ts';
import { useSentStore } from './mail-sent.ts';
import { useSessionStore } from './session.ts';

const AGENT = 'agent-a';

function item(n: number): SentMail {
  return {
    message_id: `m-${n}`,
    destination: 'local',
    to: 'bo',
    to_alias: 'bo',
    to_address: null,
    to_did: 'did:key:zbo',
    to_stable_id: null,
    subject: `#${n}`,
    body: `mail ${n}`,
    priority: 'normal',
    signature: 'sig',
    signed_payload: 'payload',
    thread_id: null,
    conversation_id: `m-${n}`,
    created_at: '2026-03-01T10:00:00.000Z',
    status: 'delivered',
    attempts: null,
    next_attempt_at: null,
    last_error: null,
    delivered_to: null,
    settled_at: '2026-03-01T10:00:00.000Z',
    end_to_end: false,
    content_mode: 'legacy_plaintext_v1',
    message_version: 1,
  };
}

/** A node with 250 sent items (m-0 newest): Sent in pages, one item by id, and the session key. */
function fakeNode() {
  const sent = Array.from({ length: 250 }, (_, n) => item(n));
  const state = { requests: [] as string[], failWith: null as number | null, gate: null as Promise<void> | null };
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });
  const fetch: FetchLike = async (url) => {
    const { pathname, searchParams } = new URL(url);
    if (pathname.endsWith('/session-key')) return json(201, { api_key: 'k', api_key_id: 'k-id', expires_at: new Date(Date.now() + 3600_000).toISOString() });
    state.requests.push(`${pathname}${searchParams.size ? `?${searchParams}` : ''}`);
    if (state.gate) await state.gate;
    if (state.failWith !== null) return json(state.failWith, { detail: 'Something broke', code: 'SVC_ERR_INTERNAL' });
    if (pathname === '/v1/messages/sent') {
      const limit = Number(searchParams.get('limit'));
      const before = searchParams.get('before');
      const start = before === null ? 0 : sent.findIndex((m) => m.message_id === before) + 1;
      const messages = sent.slice(start, start + limit);
      const hasMore = start + limit < sent.length;
      return json(200, { messages, has_more: hasMore, next_before: hasMore ? messages.at(-1)!.message_id : null });
    }
    const one = /^\/v1\/messages\/sent\/([^/]+)$/.exec(pathname);
    if (one) {
      const found = sent.find((m) => m.message_id === decodeURIComponent(one[1]!));
      return found ? json(200, found) : json(404, { detail: 'Message not found', code: 'SVC_ERR_MESSAGE_NOT_FOUND' });
    }
    return json(404, { detail: 'Not Found', code: 'SVC_ERR_NOT_FOUND' });
  };
  return { state, client: new NodeClient({ coreUrl: 'http://n', token: 'owner', mode: 'desktop', fetch }) };
}

let node: ReturnType<typeof fakeNode>;

beforeEach(() => {
  setActivePinia(createPinia());
  node = fakeNode();
  useSessionStore().client = node.client;
});

/** The store for AGENT with its first page (100 items) shown, and the requests so far forgotten. */
async function shown() {
  const store = useSentStore();
  store.reset(AGENT);
  await store.load();
  expect(store.items).toHaveLength(100);
  node.state.requests = [];
  return store;
}

describe('Sent store: reveal', () => {
  it('selects a message beyond the loaded pages in one request, by id, and leaves the list as it was', async () => {
    const store = await shown();
    expect(await store.reveal('m-230')).toBe(true);
    expect(node.state.requests).toEqual(['/v1/messages/sent/m-230']);
    expect(store.selectedId).toBe('m-230');
    expect(store.selected).toEqual(item(230));
    expect(store.items).toHaveLength(100);
    expect(store.hasMore).toBe(true);
  });

  it('selects a listed message without asking the node', async () => {
    const store = await shown();
    expect(await store.reveal('m-42')).toBe(true);
    expect(node.state.requests).toEqual([]);
    expect(store.selected).toEqual(item(42));
  });

  it('loads the list first when it was not shown yet', async () => {
    const store = useSentStore();
    store.reset(AGENT);
    expect(await store.reveal('m-7')).toBe(true);
    expect(node.state.requests).toEqual(['/v1/messages/sent?limit=100']);
    expect(store.selected).toEqual(item(7));
  });

  it('is false when the node answers 404 (not sent by this identity), the selection kept', async () => {
    const store = await shown();
    store.select('m-3');
    expect(await store.reveal('someone-elses')).toBe(false);
    expect(node.state.requests).toEqual(['/v1/messages/sent/someone-elses']);
    expect(store.selectedId).toBe('m-3');
    expect(store.error).toBeNull();
  });

  it('is false with the node’s words when the lookup fails otherwise', async () => {
    const store = await shown();
    node.state.failWith = 500;
    expect(await store.reveal('m-200')).toBe(false);
    expect(store.selected).toBeNull();
    expect(store.error).toBe('Something broke');
  });

  it('drops an answer that comes after the store moved to another identity', async () => {
    const store = await shown();
    let release!: () => void;
    node.state.gate = new Promise((resolve) => (release = resolve));
    const revealing = store.reveal('m-200');
    await new Promise((resolve) => setTimeout(resolve, 0));
    store.reset('agent-b');
    release();
    expect(await revealing).toBe(false);
    expect(store.selectedId).toBeNull();
    expect(store.selected).toBeNull();
  });

  it('forgets the revealed message on reset, and the list takes over once it lists it', async () => {
    const store = await shown();
    await store.reveal('m-150');
    expect(store.selected?.message_id).toBe('m-150');
    await store.loadMore();
    expect(store.items.some((m) => m.message_id === 'm-150')).toBe(true);
    expect(store.selected).toBe(store.items.find((m) => m.message_id === 'm-150'));
    store.reset(AGENT);
    expect(store.selected).toBeNull();
  });
});
