/**
 * The sidebar's unread badges for the current identity: unread mail and unread chat messages,
 * from `GET /v1/chat/pending` (one call gives both). Refreshed when the identity changes, when
 * something arrives for it or its mail changes elsewhere (read, archived, deleted by an agent or
 * another window), when the live stream reconnects, and after the user reads.
 */
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type { PendingChat } from '../api/chat.ts';
import { useDirectoryStore } from './directory.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';

export const useUnreadStore = defineStore('unread', () => {
  const session = useSessionStore();
  const directory = useDirectoryStore();
  const live = useLiveStore();

  const agentId = computed(() => directory.currentIdentity?.agent_id ?? null);
  const mail = ref(0);
  const pending = ref<PendingChat[]>([]);
  const chat = computed(() => pending.value.reduce((sum, item) => sum + item.unread_count, 0));

  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;

  async function refresh(): Promise<void> {
    clearTimeout(timer);
    const id = agentId.value;
    const mine = ++generation;
    if (id === null) {
      mail.value = 0;
      pending.value = [];
      return;
    }
    try {
      const answer = await session.asIdentity(id).chat.pending();
      if (mine !== generation) return; // the identity changed meanwhile
      mail.value = answer.messages_waiting;
      pending.value = answer.pending;
    } catch {
      // Badges are a hint: keep the last counts; the views say what failed where it matters.
    }
  }

  /** A burst of arrivals (or reads) becomes one request. */
  function schedule(delayMs = 250): void {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), delayMs);
  }

  /** Optimistic: one mail was just read here. */
  function mailRead(): void {
    mail.value = Math.max(0, mail.value - 1);
    schedule(600);
  }

  /** Optimistic: a chat session was just read here. */
  function chatRead(sessionId: string): void {
    pending.value = pending.value.map((item) => (item.session_id === sessionId ? { ...item, unread_count: 0 } : item));
    schedule(600);
  }

  watch(
    agentId,
    (id) => {
      live.setCurrent(id);
      mail.value = 0;
      pending.value = [];
      void refresh();
    },
    { immediate: true },
  );
  live.onItem((item) => {
    if (item.agent_id === agentId.value) schedule();
  });
  live.onChange((change) => {
    if (change.kind === 'mail_changed' && change.agentId === agentId.value) schedule();
  });
  live.onOpen(() => schedule());

  return { mail, chat, pending, refresh, schedule, mailRead, chatRead };
});
