/**
 * The Shelf's list: the shown team's profiles (stores/shelf.ts says which team), read in pages in
 * profile_ref order (the node's key), more as the list scrolls, so a shelf of 100,000 profiles
 * opens as fast as one of ten. A change the node confirmed for one profile (its tags) is written
 * onto its row without reading the list again.
 */
import type { LibraryClient, ShelfProfile } from '../api/library.ts';
import { usePagedList } from './usePagedList.ts';

/** Shelf rows read at first, and per further page (the node allows up to 500). */
const FIRST_PAGE = 200;
const PAGE = 500;

export function useShelfList(library: () => LibraryClient) {
  const list = usePagedList<ShelfProfile>({
    read: async (after, limit) => {
      const page = await library().shelfPage({ limit, after });
      return { items: page.profiles, hasMore: page.has_more, next: page.next_after };
    },
    key: (p) => p.profile_ref,
    pageSize: PAGE,
    firstPage: FIRST_PAGE,
  });
  const { items: profiles, hasMore, loadingMore, loaded: profilesLoaded, error: profilesError } = list;

  /** The list read again from the start, as far as it had been read (at least the first page). */
  async function loadShelf(): Promise<void> {
    await list.load();
  }

  /** The next page of the list, when there is one and none is on its way. */
  function loadMore(): Promise<void> {
    return list.loadMore();
  }

  /** One profile's row as the node now has it, the rest of the list as it was. */
  function patchRow(profileRef: string, changes: Partial<ShelfProfile>): void {
    profiles.value = profiles.value.map((p) => (p.profile_ref === profileRef ? { ...p, ...changes } : p));
  }

  return { profiles, hasMore, loadingMore, profilesLoaded, profilesError, loadShelf, loadMore, patchRow, resetList: list.reset };
}
