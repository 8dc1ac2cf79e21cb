/**
 * Sent (issue 14): everything the current identity sent, newest first, one item per recipient,
 * to identities on this node (delivered) and to other nodes (queued, delivered or bounced), paged
 * from the node as the list scrolls. The mail store says whose it is (`reset`) and when a send
 * or a bounce may have changed it (`refresh`, which merges the newest page in).
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { SentMail } from '../api/client.ts';
import { errorMessage } from '../lib/format.ts';
import { appendPage } from '../lib/mail.ts';
import { useSessionStore } from './session.ts';

const PAGE = 100;

/** The newest page merged over what is shown: known items updated (a delivery state), new ones first. */
function mergeNewest(list: readonly SentMail[], newest: readonly SentMail[]): SentMail[] {
  const fresh = new Map(newest.map((m) => [m.message_id, m]));
  const kept = list.map((m) => fresh.get(m.message_id) ?? m);
  const known = new Set(list.map((m) => m.message_id));
  return [...newest.filter((m) => !known.has(m.message_id)), ...kept];
}

export const useSentStore = defineStore('mail-sent', () => {
  const session = useSessionStore();

  const agentId = ref<string | null>(null);
  // Replaced whole on every change (never mutated): no deep reactivity over thousands of items.
  const items = shallowRef<SentMail[]>([]);
  const hasMore = ref(false);
  const nextBefore = ref<string | null>(null);
  const loaded = ref(false);
  const loading = ref(false);
  const loadingMore = ref(false);
  const error = ref<string | null>(null);
  const selectedId = ref<string | null>(null);

  const selected = computed(() => items.value.find((m) => m.message_id === selectedId.value) ?? null);

  let generation = 0;

  function api() {
    if (agentId.value === null) throw new Error('No identity is selected.');
    return session.asIdentity(agentId.value);
  }

  /** Forgets what was shown: another identity, or none. Loads again when next shown. */
  function reset(id: string | null): void {
    generation++;
    agentId.value = id;
    items.value = [];
    hasMore.value = false;
    nextBefore.value = null;
    loaded.value = false;
    loading.value = false;
    loadingMore.value = false;
    error.value = null;
    selectedId.value = null;
  }

  async function load(): Promise<void> {
    const mine = ++generation;
    error.value = null;
    if (agentId.value === null) {
      loaded.value = true;
      return;
    }
    loading.value = true;
    try {
      const page = await api().sent({ limit: PAGE });
      if (mine !== generation) return;
      items.value = page.messages;
      hasMore.value = page.has_more;
      nextBefore.value = page.next_before;
    } catch (caught) {
      if (mine === generation) error.value = errorMessage(caught);
    } finally {
      if (mine === generation) {
        loading.value = false;
        loaded.value = true;
      }
    }
  }

  async function loadMore(): Promise<void> {
    if (!hasMore.value || loadingMore.value || nextBefore.value === null) return;
    const mine = generation;
    loadingMore.value = true;
    try {
      const page = await api().sent({ limit: PAGE, before: nextBefore.value });
      if (mine !== generation) return;
      items.value = appendPage(items.value, page.messages);
      hasMore.value = page.has_more;
      nextBefore.value = page.next_before;
    } catch (caught) {
      if (mine === generation) error.value = errorMessage(caught);
    } finally {
      if (mine === generation) loadingMore.value = false;
    }
  }

  /** A send went out, or a delivery state may have changed: merge the newest page (quietly). */
  async function refresh(): Promise<void> {
    if (agentId.value === null || !loaded.value) return;
    const mine = generation;
    try {
      const page = await api().sent({ limit: 50 });
      if (mine === generation) items.value = mergeNewest(items.value, page.messages);
    } catch {
      // Keep what is shown; the next load says what failed.
    }
  }

  function select(id: string | null): void {
    selectedId.value = id;
  }

  return { agentId, items, hasMore, loaded, loading, loadingMore, error, selectedId, selected, reset, load, loadMore, refresh, select };
});
