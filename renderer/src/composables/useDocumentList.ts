/**
 * The documents list of the team shown (stores/documents.ts says which): read a page at a time
 * (100,000 documents stay smooth), filtered on the node by title or slug, with the drafts kept on
 * this device first (lib/drafts.ts#documentRows).
 */
import { computed, ref } from 'vue';
import type { DocsClient, DocumentSummary } from '../api/docs.ts';
import { documentRows, type DocumentDraft, type DraftStore } from '../lib/drafts.ts';
import { usePagedList } from './usePagedList.ts';

/** Documents read per page as the list scrolls; a refresh reads up to 500 at a time. */
const PAGE_SIZE = 100;
const REFRESH_PAGE_SIZE = 500;

export interface ShownTeam {
  team: () => string | null;
  client: () => DocsClient;
  drafts: () => DraftStore;
}

export function useDocumentList(shown: ShownTeam) {
  /** The list's filter (title or slug), applied by the node. */
  const query = ref('');
  /** The pages of the list read so far, newest first (composables/usePagedList.ts). */
  const list = usePagedList<DocumentSummary>({
    read: async (after, limit) => {
      const page = await shown.client().page({ limit, after, q: query.value });
      return { items: page.documents, hasMore: page.has_more, next: page.next_after, total: page.total };
    },
    key: (d) => d.slug,
    pageSize: PAGE_SIZE,
    reloadPageSize: REFRESH_PAGE_SIZE,
  });
  const { items: documents, loaded, error: listError, hasMore } = list;
  /** How many documents match the filter on the node (more than `documents` until every page is read). */
  const total = computed(() => list.total.value ?? 0);
  const drafts = ref<DocumentDraft[]>([]);
  const rows = computed(() => documentRows(drafts.value, documents.value, query.value));

  /** The drafts kept on this device for the team shown, read again after each change to them. */
  function readDrafts(): void {
    const team = shown.team();
    drafts.value = team === null ? [] : shown.drafts().list(team);
  }

  /**
   * Reads the list again from the top, as far as it had been read (at least a page), so a refresh
   * keeps what was on screen; another team or filter meanwhile makes the answer moot.
   */
  async function loadList(): Promise<void> {
    await list.load();
  }

  /** The next page, when the list is scrolled near its end; one read at a time. */
  function loadMore(): Promise<void> {
    return list.loadMore();
  }

  /** Filters the list on the node by title or slug (the component debounces typing). */
  async function search(text: string): Promise<void> {
    if (text === query.value) return;
    query.value = text;
    list.clear();
    await loadList();
  }

  /** Another team is shown: nothing of the last one's list stays. */
  function reset(): void {
    list.reset();
  }

  return { query, documents, loaded, listError, hasMore, total, drafts, rows, readDrafts, loadList, loadMore, search, reset };
}
