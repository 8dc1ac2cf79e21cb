/**
 * One search as the palette and the fields use it: asked once typing pauses, only the newest
 * question's answer shown whatever order the node answers in, a refused query in words, the next
 * page appended only while it still belongs to the question shown.
 */
import { effectScope, nextTick, ref } from 'vue';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/errors.ts';
import type { SearchHit, SearchParams, SearchResults } from '../api/search.ts';
import { SEARCH_DELAY_MS, useSearch, type SearchScope } from './useSearch.ts';

const hit = (id: string): SearchHit => ({
  kind: 'chat',
  title: id,
  snippet: id,
  highlights: [],
  title_highlights: [],
  created_at: '2026-01-01T00:00:00Z',
  score: 1,
  message_id: id,
  session_id: 's',
  agent_id: 'a',
  from: 'bob',
});
const answer = (ids: string[], next: string | null = null, complete = true): SearchResults => ({
  results: ids.map(hit),
  next_cursor: next,
  more_matches: false,
  index: { complete, indexed: 1, total: complete ? 1 : 4 },
});

/** A node whose answers the test gives, one question at a time, in any order. */
function node() {
  const asked: { params: SearchParams; resolve: (value: SearchResults) => void; reject: (error: unknown) => void }[] = [];
  const run = (params: SearchParams) => new Promise<SearchResults>((resolve, reject) => asked.push({ params, resolve, reject }));
  return { asked, run };
}

const settle = async () => {
  await nextTick();
  await Promise.resolve();
  await nextTick();
};

let scope: ReturnType<typeof effectScope>;
beforeEach(() => {
  vi.useFakeTimers();
  scope = effectScope();
});
afterEach(() => {
  scope.stop();
  vi.useRealTimers();
});

function make(filters: () => SearchScope | null = () => ({})) {
  const fake = node();
  const search = scope.run(() => useSearch({ run: fake.run, scope: filters }))!;
  return { ...fake, search };
}

async function type(search: ReturnType<typeof useSearch>, text: string, wait = SEARCH_DELAY_MS): Promise<void> {
  search.text.value = text;
  await settle();
  vi.advanceTimersByTime(wait);
  await settle();
}

describe('useSearch', () => {
  it('asks once typing pauses, with the place’s filters and the trimmed text', async () => {
    const { asked, search } = make(() => ({ type: ['mail'], agent_id: 'a1' }));
    await type(search, 'c', 0);
    await type(search, 'ca', 50);
    await type(search, 'caf', 50);
    expect(asked).toHaveLength(0);
    expect(search.loading.value).toBe(true);
    await type(search, ' cafe ', SEARCH_DELAY_MS);
    expect(asked.map((a) => a.params)).toEqual([{ type: ['mail'], agent_id: 'a1', q: 'cafe' }]);
    asked[0]?.resolve(answer(['m1']));
    await settle();
    expect(search.hits.value.map((h) => h.title)).toEqual(['m1']);
    expect(search.answered.value).toBe('cafe');
    expect(search.loading.value).toBe(false);
  });

  it('does not ask for fewer than two characters, and forgets the results then', async () => {
    const { asked, search } = make();
    await type(search, 'x');
    expect(asked).toHaveLength(0);
    expect(search.searching.value).toBe(false);
    await type(search, 'xy');
    asked[0]?.resolve(answer(['a']));
    await settle();
    expect(search.hits.value).toHaveLength(1);
    await type(search, 'x');
    expect(search.hits.value).toEqual([]);
    expect(search.answered.value).toBeNull();
  });

  it('never shows an older question’s answer over a newer one’s', async () => {
    const { asked, search } = make();
    await type(search, 'caf');
    await type(search, 'cafe');
    expect(asked.map((a) => a.params.q)).toEqual(['caf', 'cafe']);
    asked[1]?.resolve(answer(['new']));
    await settle();
    asked[0]?.resolve(answer(['old']));
    await settle();
    expect(search.hits.value.map((h) => h.title)).toEqual(['new']);
    expect(search.answered.value).toBe('cafe');
  });

  it('drops an answer that arrives after the text changed again, before the next question is asked', async () => {
    const { asked, search } = make();
    await type(search, 'caf');
    search.text.value = 'cafe';
    await settle();
    asked[0]?.resolve(answer(['old']));
    await settle();
    expect(search.hits.value).toEqual([]);
    expect(search.loading.value).toBe(true);
  });

  it('shows a refused query in words, in place of the results, and says when nothing matched', async () => {
    const { asked, search } = make();
    await type(search, 'cafe');
    asked[0]?.resolve(answer(['m1']));
    await settle();
    await type(search, '"au lait');
    asked[1]?.reject(new ApiError(422, 'Q: unclosed quote', [{ field: 'q', message: 'unclosed quote starting at character 1' }]));
    await settle();
    expect(search.error.value).toBe('Unclosed quote starting at character 1');
    expect(search.hits.value).toEqual([]);
    expect(search.empty.value).toBe(false);
    await type(search, 'zzz');
    asked[2]?.resolve(answer([]));
    await settle();
    expect(search.error.value).toBeNull();
    expect(search.empty.value).toBe(true);
  });

  it('asks again when the filters change (another identity), and not at all without any', async () => {
    const agent = ref<string | null>('a1');
    const { asked, search } = make(() => (agent.value === null ? null : { agent_id: agent.value }));
    await type(search, 'cafe');
    agent.value = 'a2';
    await settle();
    vi.advanceTimersByTime(SEARCH_DELAY_MS);
    await settle();
    expect(asked.map((a) => a.params.agent_id)).toEqual(['a1', 'a2']);
    agent.value = null;
    await settle();
    vi.advanceTimersByTime(SEARCH_DELAY_MS);
    expect(asked).toHaveLength(2);
    expect(search.loading.value).toBe(false);
  });

  it('appends the next page of the question shown, and drops one that belongs to an older question', async () => {
    const { asked, search } = make();
    await type(search, 'cafe');
    asked[0]?.resolve(answer(['a', 'b'], 'c2', false));
    await settle();
    expect(search.hasMore.value).toBe(true);
    expect(search.index.value?.complete).toBe(false);
    void search.loadMore();
    void search.loadMore();
    expect(asked.map((a) => a.params)).toEqual([{ q: 'cafe' }, { q: 'cafe', cursor: 'c2' }]);
    asked[1]?.resolve(answer(['b', 'c'], 'c3'));
    await settle();
    expect(search.hits.value.map((h) => h.title)).toEqual(['a', 'b', 'c']);

    void search.loadMore();
    await type(search, 'tea');
    asked[2]?.resolve(answer(['stale']));
    await settle();
    expect(search.hits.value.map((h) => h.title)).not.toContain('stale');
  });

  it('clears everything, and answers on their way stay unseen', async () => {
    const { asked, search } = make();
    await type(search, 'cafe');
    search.clear();
    await settle();
    asked[0]?.resolve(answer(['late']));
    await settle();
    expect(search.text.value).toBe('');
    expect(search.hits.value).toEqual([]);
    expect(search.loading.value).toBe(false);
  });
});
