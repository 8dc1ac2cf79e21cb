/**
 * "Sent to other nodes": the current identity's mail and chat to other nodes with its delivery
 * state (queued, delivered, bounced), newest first. The mail store says whose it is (`reset`) and
 * when a bounce or a send may have changed it; the view reads it again while it is shown. A
 * failed read keeps what is shown, with the reason.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { OutboundMail } from '../api/mail.ts';
import { errorMessage } from '../lib/format.ts';
import { useSessionStore } from './session.ts';

export const useOutboundStore = defineStore('mail-outbound', () => {
  const session = useSessionStore();

  const agentId = ref<string | null>(null);
  const items = ref<OutboundMail[]>([]);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  const selectedId = ref<string | null>(null);

  const selected = computed(() => items.value.find((m) => m.message_id === selectedId.value) ?? null);
  const queuedCount = computed(() => items.value.filter((m) => m.status === 'queued').length);

  /** Forgets what was shown: another identity, or none. Loads again when next asked. */
  function reset(id: string | null): void {
    agentId.value = id;
    items.value = [];
    loaded.value = false;
    error.value = null;
    selectedId.value = null;
  }

  /** Each read is numbered: an answer older than one asked for since (states it would turn back) is dropped. */
  let reads = 0;

  async function load(): Promise<void> {
    const owner = agentId.value;
    if (owner === null) {
      loaded.value = true;
      return;
    }
    const mine = ++reads;
    const current = () => owner === agentId.value && mine === reads;
    try {
      const list = await session.asIdentity(owner).mail.outbound();
      if (!current()) return;
      items.value = list;
      error.value = null;
    } catch (failure) {
      if (current()) error.value = errorMessage(failure);
    } finally {
      if (current()) loaded.value = true;
    }
  }

  function select(id: string | null): void {
    selectedId.value = id;
  }

  return { agentId, items, loaded, error, selectedId, selected, queuedCount, reset, load, select };
});
