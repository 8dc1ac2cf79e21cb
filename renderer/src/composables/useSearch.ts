/**
 * One search, as a place shows it (the command palette; the fields of Mail, Documents and Shelf):
 * the text typed, asked of the node once typing pauses (2 characters or more), only the newest
 * question's answer shown (lib/search.ts `latestOnly`: results never flicker back to an older
 * query), what the index still lacks, a refused query in words, and the next page. Each place
 * makes its own with its own filters (`scope`); this is the one implementation they share.
 */
import { MIN_SEARCH_CHARS } from '../../../contract/core-rules.ts';
import { computed, getCurrentScope, onScopeDispose, ref, shallowRef, watch } from 'vue';
import { searchErrorText, type SearchHit, type SearchIndexState, type SearchParams, type SearchResults } from '../api/search.ts';
import { hitKey, latestOnly } from '../lib/search.ts';
import { useSessionStore } from '../stores/session.ts';

/** Typing may pause this long before the node is asked (short: search should feel instant). */
export const SEARCH_DELAY_MS = 150;

/** A place's filters: everything but the text and the page. */
export type SearchScope = Omit<SearchParams, 'q' | 'cursor'>;

export interface SearchOptions {
  /** This place's filters (one identity's mail, one team's documents); null while there is nothing to search in. */
  scope?: () => SearchScope | null;
  delayMs?: number;
  /** Asks the node: the owner client's `search` unless a test passes its own. */
  run?: (params: SearchParams) => Promise<SearchResults>;
}

export function useSearch(options: SearchOptions = {}) {
  const run = options.run ?? ((params: SearchParams) => useSessionStore().api().search(params));
  const delay = options.delayMs ?? SEARCH_DELAY_MS;
  const scope = options.scope ?? ((): SearchScope => ({}));

  const text = ref('');
  const query = computed(() => text.value.trim());
  /** The text is long enough to ask the node. */
  const searching = computed(() => query.value.length >= MIN_SEARCH_CHARS);

  // Replaced whole on every answer: no deep reactivity over the hits.
  const hits = shallowRef<SearchHit[]>([]);
  /** The query the shown hits (or error) answer; null before the first answer. */
  const answered = ref<string | null>(null);
  const index = shallowRef<SearchIndexState | null>(null);
  /** Why the search failed, in words (a refused query: what is wrong with it). */
  const error = ref<string | null>(null);
  /** A question is waiting: typing has not paused yet, or the node has not answered. */
  const loading = ref(false);
  const loadingMore = ref(false);
  /** More matched than the node ranks: a narrower query reaches older ones. */
  const moreMatches = ref(false);
  const nextCursor = ref<string | null>(null);
  const hasMore = computed(() => nextCursor.value !== null);
  /** Answered, with nothing found: "No matches for …". */
  const empty = computed(() => !loading.value && answered.value === query.value && error.value === null && hits.value.length === 0);

  const gate = latestOnly();
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The newest question and its check, for its next page. */
  let asked: { params: SearchParams; isCurrent: () => boolean } | null = null;

  function reset(): void {
    clearTimeout(timer);
    gate.cancel();
    asked = null;
    hits.value = [];
    answered.value = null;
    index.value = null;
    error.value = null;
    loading.value = false;
    loadingMore.value = false;
    moreMatches.value = false;
    nextCursor.value = null;
  }

  function take(answer: SearchResults, q: string): void {
    hits.value = answer.results;
    index.value = answer.index;
    moreMatches.value = answer.more_matches;
    nextCursor.value = answer.next_cursor;
    error.value = null;
    answered.value = q;
  }

  async function ask(params: SearchParams): Promise<void> {
    const isCurrent = gate.begin();
    asked = { params, isCurrent };
    loadingMore.value = false;
    try {
      const answer = await run(params);
      if (isCurrent()) take(answer, params.q);
    } catch (failure) {
      if (!isCurrent()) return;
      // The failure is this query's answer: hits of the one before would look like its results.
      hits.value = [];
      nextCursor.value = null;
      error.value = searchErrorText(failure);
      answered.value = params.q;
    } finally {
      if (isCurrent()) loading.value = false;
    }
  }

  /** What was typed (or the filters) changed: ask again once typing pauses, or show nothing. */
  function schedule(): void {
    clearTimeout(timer);
    const filters = scope();
    if (!searching.value || filters === null) {
      reset();
      return;
    }
    // An answer on its way is to an older question now.
    gate.cancel();
    loading.value = true;
    const q = query.value;
    timer = setTimeout(() => void ask({ ...filters, q }), delay);
  }

  /** The newest question's next page, appended (nothing when the question changed meanwhile). */
  async function loadMore(): Promise<void> {
    const cursor = nextCursor.value;
    const current = asked;
    if (current === null || cursor === null || loadingMore.value || loading.value) return;
    loadingMore.value = true;
    try {
      const answer = await run({ ...current.params, cursor });
      if (!current.isCurrent()) return;
      const seen = new Set(hits.value.map(hitKey));
      hits.value = [...hits.value, ...answer.results.filter((hit) => !seen.has(hitKey(hit)))];
      index.value = answer.index;
      moreMatches.value = answer.more_matches;
      nextCursor.value = answer.next_cursor;
    } catch (failure) {
      if (current.isCurrent()) error.value = searchErrorText(failure);
    } finally {
      if (current.isCurrent()) loadingMore.value = false;
    }
  }

  function clear(): void {
    text.value = '';
    reset();
  }

  // The filters as a string: a new object with the same filters is no change.
  watch([query, () => JSON.stringify(scope())], schedule);
  if (getCurrentScope()) onScopeDispose(reset);

  return { text, query, searching, hits, answered, index, error, loading, loadingMore, moreMatches, hasMore, empty, loadMore, clear };
}

export type Search = ReturnType<typeof useSearch>;
