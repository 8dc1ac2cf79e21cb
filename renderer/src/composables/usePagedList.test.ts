/**
 * The paged list every long view keeps (inbox, Sent, chat sessions, documents, the shelf): a
 * page read that the list has moved on from is never shown, whichever order the node answers in.
 * The node here is a list of keys whose answers the test releases one by one.
 */
import { describe, expect, it } from 'vitest';
import type { KeysetPage } from '../lib/paged-list.ts';
import { usePagedList } from './usePagedList.ts';

interface Asked {
  after: string | null;
  limit: number;
  answer: () => void;
  fail: (message: string) => void;
}

/** A node serving `keys` in pages; each read waits until the test answers it (from the list as it is then). */
function node(keys: string[], total = false) {
  const asked: Asked[] = [];
  const read = (after: string | null, limit: number): Promise<KeysetPage<string>> =>
    new Promise((resolve, reject) => {
      asked.push({
        after,
        limit,
        answer: () => {
          const rest = keys.filter((k) => after === null || k > after);
          const items = rest.slice(0, limit);
          const hasMore = rest.length > limit;
          resolve({ items, hasMore, next: hasMore ? (items.at(-1) ?? null) : null, ...(total ? { total: keys.length } : {}) });
        },
        fail: (message) => reject(new Error(message)),
      });
    });
  /** Answers the oldest read still waiting. */
  const answerNext = async () => {
    asked.shift()!.answer();
    await flush();
  };
  return { asked, read, answerNext };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `k${String(from + i).padStart(4, '0')}`);

function list(keys: string[], pageSize = 10, total = false) {
  const server = node(keys, total);
  return { server, list: usePagedList({ read: server.read, key: (k: string) => k, pageSize }) };
}

describe('usePagedList', () => {
  it('loads the first page, then more as asked, one read at a time', async () => {
    const { server, list: l } = list(range(0, 25));
    const loading = l.load();
    expect(l.loading.value).toBe(true);
    await server.answerNext();
    expect(await loading).toBe(true);
    expect(l.items.value).toEqual(range(0, 10));
    expect({ loaded: l.loaded.value, loading: l.loading.value, hasMore: l.hasMore.value }).toEqual({ loaded: true, loading: false, hasMore: true });

    const first = l.loadMore();
    expect(l.loadMore()).toBe(first);
    expect(l.loadingMore.value).toBe(true);
    expect(server.asked.map((a) => a.after)).toEqual(['k0009']);
    await server.answerNext();
    await first;
    expect(l.items.value).toEqual(range(0, 20));
    expect(l.loadingMore.value).toBe(false);

    await Promise.all([l.loadMore(), server.answerNext()]);
    expect(l.items.value).toEqual(range(0, 25));
    expect(l.hasMore.value).toBe(false);
    await l.loadMore();
    expect(server.asked).toEqual([]);
  });

  it('shows the later of two loads, whichever the node answers first', async () => {
    const keys = range(0, 5);
    const { server, list: l } = list(keys);
    const older = l.load();
    keys.push('k9999');
    const newer = l.load();
    // The newer read is answered first; the older answer, coming last, is dropped.
    server.asked[1]!.answer();
    server.asked[0]!.answer();
    expect(await newer).toBe(true);
    expect(await older).toBe(false);
    expect(l.items.value).toEqual([...range(0, 5), 'k9999']);
    expect(l.loading.value).toBe(false);
  });

  it('drops a page asked for before a reset, and pages again after it', async () => {
    const { server, list: l } = list(range(0, 30));
    await Promise.all([l.load(), server.answerNext()]);
    const stale = l.loadMore();
    l.reset();
    expect({ items: l.items.value, loaded: l.loaded.value, loadingMore: l.loadingMore.value }).toEqual({ items: [], loaded: false, loadingMore: false });

    const reload = l.load();
    server.asked.splice(1, 1)[0]!.answer();
    await reload;
    const fresh = l.loadMore();
    expect(fresh).not.toBe(stale);
    // The page asked for before the reset answers now: it is not added.
    await server.answerNext();
    await stale;
    expect(l.items.value).toEqual(range(0, 10));
    expect(l.loadingMore.value).toBe(true);
    await server.answerNext();
    await fresh;
    expect(l.items.value).toEqual(range(0, 20));
    expect(l.loadingMore.value).toBe(false);
  });

  it('keeps "loaded" across clear (a new filter), and drops what was asked before it', async () => {
    const { server, list: l } = list(range(0, 5));
    await Promise.all([l.load(), server.answerNext()]);
    const before = l.load();
    l.clear();
    expect({ items: l.items.value, loaded: l.loaded.value }).toEqual({ items: [], loaded: true });
    await server.answerNext();
    expect(await before).toBe(false);
    expect(l.items.value).toEqual([]);
  });

  it('says why a read failed, keeps what is shown, and clears the reason once a read works', async () => {
    const { server, list: l } = list(range(0, 15));
    const first = l.load();
    server.asked.shift()!.fail('The node can’t be reached.');
    expect(await first).toBe(false);
    expect({ error: l.error.value, loaded: l.loaded.value, loading: l.loading.value }).toEqual({
      error: 'The node can’t be reached.',
      loaded: true,
      loading: false,
    });

    await Promise.all([l.load(), server.answerNext()]);
    expect(l.error.value).toBeNull();
    const more = l.loadMore();
    server.asked.shift()!.fail('Too many requests');
    await more;
    expect(l.error.value).toBe('Too many requests');
    expect(l.items.value).toEqual(range(0, 10));
    // It can be asked again.
    await Promise.all([l.loadMore(), server.answerNext()]);
    expect(l.items.value).toEqual(range(0, 15));
    expect(l.error.value).toBeNull();
  });

  it('reads again as far as the list had been read, so a refresh keeps what was on screen', async () => {
    const keys = range(0, 40);
    const server = node(keys, true);
    const l = usePagedList({ read: server.read, key: (k: string) => k, pageSize: 10, reloadPageSize: 25 });
    await Promise.all([l.load(), server.answerNext()]);
    await Promise.all([l.loadMore(), server.answerNext()]);
    await Promise.all([l.loadMore(), server.answerNext()]);
    expect(l.items.value).toHaveLength(30);
    expect(l.total.value).toBe(40);
    keys.splice(3, 1); // gone from the node (archived elsewhere)
    const reload = l.load();
    await server.answerNext();
    await server.answerNext();
    expect(await reload).toBe(true);
    expect(server.asked).toEqual([]);
    expect(l.items.value).toEqual(range(0, 40).filter((k) => k !== 'k0003'));
    expect(l.total.value).toBe(39);
    expect(l.hasMore.value).toBe(false);
  });

  it('refreshTop puts the first page over the list and keeps the rest and its cursor', async () => {
    const keys = range(10, 40);
    const { server, list: l } = list(keys);
    await Promise.all([l.load(), server.answerNext()]);
    await Promise.all([l.loadMore(), server.answerNext()]);
    keys.unshift('k0001', 'k0002');
    const top = l.refreshTop();
    expect(server.asked.map((a) => [a.after, a.limit])).toEqual([[null, 10]]);
    await server.answerNext();
    await top;
    expect(l.items.value).toEqual(['k0001', 'k0002', ...range(10, 30)]);
    // The next page still starts after the last one read.
    const more = l.loadMore();
    expect(server.asked.map((a) => a.after)).toEqual(['k0029']);
    await server.answerNext();
    await more;
    expect(l.items.value).toEqual(['k0001', 'k0002', ...range(10, 40)]);
  });

  it('refreshTop on a list not loaded yet is a load; a load started meanwhile wins over it', async () => {
    const keys = range(0, 3);
    const { server, list: l } = list(keys);
    const first = l.refreshTop();
    await server.answerNext();
    await first;
    expect(l.items.value).toEqual(range(0, 3));
    const top = l.refreshTop();
    const load = l.load();
    server.asked[1]!.answer();
    await load;
    keys.push('k9999');
    server.asked[0]!.answer();
    await top;
    expect(l.items.value).toEqual(range(0, 3));
  });

  it('ticket says whether the caller’s own read still belongs to the list', () => {
    const { list: l } = list([]);
    const ticket = l.ticket();
    expect(ticket()).toBe(true);
    l.reset();
    expect(ticket()).toBe(false);
  });
});
