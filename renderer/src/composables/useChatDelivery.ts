/**
 * For the chat store (stores/chat.ts): the delivery state of my messages in the open chat when
 * someone in it is on another node (queued, delivered, bounced), as the node's outbound list says.
 * Read when the chat opens or turns out to have such a participant (the session list or the node's
 * domains can arrive after it opened), after each send and each bounce, and again every few
 * seconds while any of mine is still queued.
 */
import { computed, shallowRef, watch } from 'vue';
import type { ChatSession } from '../api/chat.ts';
import type { OutboundMail } from '../api/mail.ts';
import { chatDeliveryPending, chatOutboundIndex, remoteParticipants } from '../lib/federation.ts';
import { useDirectoryStore } from '../stores/directory.ts';

/** How often the delivery states are read again while a message to another node is queued. */
const POLL_MS = 5_000;

export function useChatDelivery(chat: {
  /** The open session's id, and its row once the list holds it. */
  openId: () => string | null;
  openSession: () => ChatSession | null;
  /** The open chat's history is loading: its end reads the states, with my messages known. */
  loading: () => boolean;
  /** The ids of my messages in the open chat that the node has. */
  mine: () => string[];
  /** The identity's outbound list (mail and chat to other nodes). */
  read: () => Promise<OutboundMail[]>;
}) {
  const directory = useDirectoryStore();

  /** The open session's participants on another node, by address (the node hosts the rest). */
  const remoteAddresses = computed(() => {
    const open = chat.openSession();
    return open === null
      ? []
      : remoteParticipants(
          open,
          directory.namespaces.map((n) => n.domain),
        );
  });
  /** My chat messages to other nodes, by message_id, as the node's outbound list last said. */
  const outbound = shallowRef<ReadonlyMap<string, OutboundMail>>(new Map());
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped when the conversation closes: answers for it are dropped. */
  let generation = 0;

  /** The conversation closed: nothing to show or poll. */
  function clear(): void {
    clearTimeout(timer);
    outbound.value = new Map();
    generation += 1;
  }

  /** Reads the delivery states again (only for a session with someone on another node). */
  async function load(): Promise<void> {
    if (chat.openId() === null || remoteAddresses.value.length === 0) return;
    const mine = generation;
    clearTimeout(timer);
    try {
      const rows = await chat.read();
      if (mine !== generation) return;
      outbound.value = chatOutboundIndex(rows);
    } catch {
      // The last states stay; the next send or arrival reads them again.
      if (mine !== generation) return;
    }
    clearTimeout(timer);
    if (chatDeliveryPending(chat.mine(), outbound.value)) {
      timer = setTimeout(() => {
        if (mine === generation) void load();
      }, POLL_MS);
    }
  }

  watch(
    () => `${chat.openId() ?? ''}|${remoteAddresses.value.length > 0}`,
    () => {
      if (!chat.loading()) void load();
    },
  );

  return { remoteAddresses, outbound, load, clear };
}
