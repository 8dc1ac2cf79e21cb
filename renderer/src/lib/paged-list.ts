/**
 * Keyset paging of a list the node serves in key order (`GET /v1/shelf?limit&after`; the inbox's
 * cursor is `before`): reading it again from the start as far as the reader had got, so a refresh
 * keeps what was on screen without reading a 100,000-row list whole. Pure; tested in
 * paged-list.test.ts; composables/usePagedList.ts keeps a list's state around it.
 */

export interface KeysetPage<T> {
  items: T[];
  hasMore: boolean;
  /** The key to read the next page after; null on the last page. */
  next: string | null;
  /** How many items the whole list has, when the node says (documents do). */
  total?: number;
}

export type PageReader<T> = (after: string | null, limit: number) => Promise<KeysetPage<T>>;

/**
 * Pages from the start until at least `count` items are read (at least one page) or the list
 * ends; `pageSize` per request. The answer pages on from where it stopped.
 */
export async function readPages<T>(read: PageReader<T>, count: number, pageSize: number): Promise<KeysetPage<T>> {
  const items: T[] = [];
  let after: string | null = null;
  for (;;) {
    const page: KeysetPage<T> = await read(after, pageSize);
    items.push(...page.items);
    if (!page.hasMore || page.next === null || items.length >= count) return { ...page, items };
    after = page.next;
  }
}
