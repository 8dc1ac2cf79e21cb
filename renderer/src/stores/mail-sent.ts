/**
 * Sent: everything the current identity sent, newest first, one item per recipient,
 * to identities on this node (delivered) and to other nodes (queued, delivered or bounced), paged
 * from the node as the list scrolls (composables/usePagedList.ts). The mail store says whose it is
 * (`reset`) and when a send or a bounce may have changed it (`refresh`, which puts the newest page
 * over what is shown). A message opened by id (a search hit, a link) that the list has not reached
 * is read from the node on its own and held beside the list (`revealed`), which stays as it was.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { SentMail } from '../api/mail.ts';
import { usePagedList } from '../composables/usePagedList.ts';
import { errorMessage } from '../lib/format.ts';
import { useSessionStore } from './session.ts';

const PAGE = 100;

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
  /** The message `reveal` read by id, for when it is not (yet) in the list. */
  const revealed = shallowRef<SentMail | null>(null);

  const selected = computed(
    () =>
      list.items.value.find((m) => m.message_id === selectedId.value) ??
      (revealed.value !== null && revealed.value.message_id === selectedId.value ? revealed.value : null),
  );

  /** Forgets what was shown: another identity, or none. Loads again when next shown. */
  function reset(id: string | null): void {
    agentId.value = id;
    list.reset();
    selectedId.value = null;
    revealed.value = null;
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

  /**
   * Selects a sent message by id (a search hit, a link): from the list when it is there, else
   * asked of the node by id, however far back it is; false when this identity sent none by that id.
   */
  async function reveal(id: string): Promise<boolean> {
    const listed = () => list.items.value.some((m) => m.message_id === id);
    if (!list.loaded.value) await list.load();
    if (listed()) {
      selectedId.value = id;
      return true;
    }
    if (agentId.value === null) return false;
    // The list is left as it is; an answer for a list since reset (another identity) is dropped.
    const current = list.ticket();
    try {
      const message = await session.asIdentity(agentId.value).mail.sentMessage(id);
      if (!current() || message === null) return false;
      revealed.value = message;
      selectedId.value = id;
      return true;
    } catch (caught) {
      if (current()) list.error.value = errorMessage(caught);
      return false;
    }
  }

  const { items, hasMore, loaded, loading, loadingMore, error, loadMore } = list;
  return { agentId, items, hasMore, loaded, loading, loadingMore, error, selectedId, selected, revealed, reset, load, loadMore, refresh, select, reveal };
});
