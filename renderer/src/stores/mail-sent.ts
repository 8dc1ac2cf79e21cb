/**
 * Sent (issue 14): everything the current identity sent, newest first, one item per recipient,
 * to identities on this node (delivered) and to other nodes (queued, delivered or bounced), paged
 * from the node as the list scrolls (composables/usePagedList.ts). The mail store says whose it is
 * (`reset`) and when a send or a bounce may have changed it (`refresh`, which puts the newest page
 * over what is shown).
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { SentMail } from '../api/mail.ts';
import { usePagedList } from '../composables/usePagedList.ts';
import { useSessionStore } from './session.ts';

const PAGE = 100;
/** How many pages a link to one sent message reads looking for it (the node has no lookup by id for Sent). */
const REVEAL_PAGES = 20;

export const useSentStore = defineStore('mail-sent', () => {
  const session = useSessionStore();

  const agentId = ref<string | null>(null);
  const list = usePagedList<SentMail>({
    read: async (before, limit) => {
      if (agentId.value === null) return { items: [], hasMore: false, next: null };
      const page = await session.asIdentity(agentId.value).mail.sent({ limit, before: before ?? undefined });
      return { items: page.messages, hasMore: page.has_more, next: page.next_before };
    },
    key: (m) => m.message_id,
    pageSize: PAGE,
  });
  const selectedId = ref<string | null>(null);

  const selected = computed(() => list.items.value.find((m) => m.message_id === selectedId.value) ?? null);

  /** Forgets what was shown: another identity, or none. Loads again when next shown. */
  function reset(id: string | null): void {
    agentId.value = id;
    list.reset();
    selectedId.value = null;
  }

  async function load(): Promise<void> {
    await list.load();
  }

  /** A send went out, or a delivery state may have changed: the newest page over what is shown. */
  async function refresh(): Promise<void> {
    if (agentId.value !== null && list.loaded.value) await list.refreshTop();
  }

  function select(id: string | null): void {
    selectedId.value = id;
  }

  /** Selects a sent message by id (a search hit, a link), reading on until it is listed; false when it is not found. */
  async function reveal(id: string): Promise<boolean> {
    const listed = () => list.items.value.some((m) => m.message_id === id);
    if (!list.loaded.value) await list.load();
    for (let page = 0; !listed() && list.hasMore.value && page < REVEAL_PAGES; page++) await list.loadMore();
    if (listed()) selectedId.value = id;
    return listed();
  }

  const { items, hasMore, loaded, loading, loadingMore, error, loadMore } = list;
  return { agentId, items, hasMore, loaded, loading, loadingMore, error, selectedId, selected, reset, load, loadMore, refresh, select, reveal };
});
