/**
 * One list the node serves a page at a time (the inbox, Sent, chat sessions, documents, the
 * shelf): the state every such list keeps, in one place. The caller says how to read a page after
 * a cursor (`read`: which route, which query, which cursor the route calls `before` or `after`);
 * this keeps the items, whether more are on the node, the cursor, the error, and drops every
 * answer the list has moved on from:
 *
 * - `load` reads from the start again, as far as the list had been read (at least a page), and
 *   replaces what is shown: the first load, a refresh that must also drop what went away
 *   (archived elsewhere, deleted). Of two loads on their way, the later one is shown.
 * - `refreshTop` reads the first page only and puts it over what is shown, keeping the rest: a
 *   refresh that costs one page however far the list was scrolled (new items, moved ones).
 * - `loadMore` reads the next page, one at a time; its answer is kept only while the list is the
 *   one it was asked for (no reset since, the same cursor).
 * - `reset` forgets the list (another identity, team, folder or filter); `clear` does too, but
 *   keeps saying it was loaded (a new filter's answer replaces the old without a "Loading…").
 *
 * The items are replaced whole on every change, never mutated (a shallowRef: no deep reactivity
 * over 100,000 rows); the stores may write them too (optimistic changes, live arrivals).
 * Paging itself is pure and tested in lib/paged-list.ts; this is tested in usePagedList.test.ts.
 */
import { ref, shallowRef } from 'vue';
import { errorMessage } from '../lib/format.ts';
import { readPages, type KeysetPage, type PageReader } from '../lib/paged-list.ts';

export interface PagedListOptions<T> {
  /** Reads up to `limit` items after `cursor` (null: from the start). */
  read: PageReader<T>;
  /** What makes an item the same item on two pages. */
  key: (item: T) => string;
  /** Items per page as the list scrolls. */
  pageSize: number;
  /** The first page's size (default `pageSize`). */
  firstPage?: number;
  /** Items per request when `load` reads a long list again (default `pageSize`). */
  reloadPageSize?: number;
}

export function usePagedList<T>(options: PagedListOptions<T>) {
  const firstPage = options.firstPage ?? options.pageSize;
  const reloadPageSize = options.reloadPageSize ?? options.pageSize;

  const items = shallowRef<T[]>([]);
  /** More items are on the node after the last one read. */
  const hasMore = ref(false);
  /** The node's count of the whole list, when its pages say it (null otherwise). */
  const total = ref<number | null>(null);
  /** The first load has answered (or failed): an empty list is then really empty. */
  const loaded = ref(false);
  const loading = ref(false);
  const loadingMore = ref(false);
  /** Why the last read failed, in words; cleared by the next one that works. */
  const error = ref<string | null>(null);

  let cursor: string | null = null;
  /** Bumped by reset and clear: every answer asked for before is dropped. */
  let generation = 0;
  /** Bumped by every load: only the latest one's answer is shown. */
  let reads = 0;
  /** Bumped by every refreshTop: its answer is shown unless a load or a later refreshTop started since. */
  let tops = 0;
  let more: Promise<void> | null = null;

  function clear(): void {
    generation++;
    items.value = [];
    hasMore.value = false;
    total.value = null;
    cursor = null;
    more = null;
    loading.value = false;
    loadingMore.value = false;
  }

  function reset(): void {
    clear();
    loaded.value = false;
    error.value = null;
  }

  /** Whether an answer asked for at `ticket()` still belongs to the list shown (for the caller's own reads). */
  function ticket(): () => boolean {
    const mine = generation;
    return () => mine === generation;
  }

  function settle(page: KeysetPage<T>): void {
    hasMore.value = page.hasMore;
    cursor = page.hasMore ? page.next : null;
    if (page.total !== undefined) total.value = page.total;
    error.value = null;
  }

  /** Reads the list again from the start, as far as it had been read, and shows it; true once shown. */
  async function load(): Promise<boolean> {
    const mine = generation;
    const read = ++reads;
    const shown = items.value.length;
    loading.value = true;
    const current = () => mine === generation && read === reads;
    try {
      const page = await readPages(options.read, Math.max(firstPage, shown), shown > firstPage ? reloadPageSize : firstPage);
      if (!current()) return false;
      items.value = page.items;
      settle(page);
      return true;
    } catch (caught) {
      if (current()) error.value = errorMessage(caught);
      return false;
    } finally {
      if (current()) {
        loading.value = false;
        loaded.value = true;
      }
    }
  }

  /** The first page over what is shown: its items first, in its order, then the rest as they were. */
  async function refreshTop(): Promise<void> {
    if (!loaded.value || items.value.length === 0) {
      await load();
      return;
    }
    const mine = generation;
    const read = reads;
    const top = ++tops;
    const current = () => mine === generation && read === reads && top === tops;
    try {
      const page = await options.read(null, firstPage);
      if (!current()) return;
      const fresh = new Set(page.items.map(options.key));
      items.value = [...page.items, ...items.value.filter((item) => !fresh.has(options.key(item)))];
      // Where the next page starts stays where the rest ended, unless the first page is all there is.
      if (!page.hasMore) settle(page);
      else error.value = null;
    } catch (caught) {
      if (current()) error.value = errorMessage(caught);
    }
  }

  /** The next page, when there is one; the same promise while it is on its way. */
  function loadMore(): Promise<void> {
    if (more !== null) return more;
    if (!hasMore.value || cursor === null) return Promise.resolve();
    loadingMore.value = true;
    const promise: Promise<void> = readMore(generation, cursor).finally(() => {
      // A reset meanwhile has let a newer read start: that one says when it is done.
      if (more !== promise) return;
      more = null;
      loadingMore.value = false;
    });
    more = promise;
    return promise;
  }

  async function readMore(mine: number, after: string): Promise<void> {
    try {
      const page = await options.read(after, options.pageSize);
      if (mine !== generation || after !== cursor) return;
      const known = new Set(items.value.map(options.key));
      items.value = [...items.value, ...page.items.filter((item) => !known.has(options.key(item)))];
      settle(page);
    } catch (caught) {
      if (mine === generation) error.value = errorMessage(caught);
    }
  }

  return { items, hasMore, total, loaded, loading, loadingMore, error, reset, clear, ticket, load, refreshTop, loadMore };
}
