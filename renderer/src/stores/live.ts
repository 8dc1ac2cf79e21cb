/**
 * The owner's live feed: one node-wide stream (`GET /v1/node/events/stream`) of new mail and chat
 * for every identity on this node. Mail, Chat and the unread badges subscribe to it; it also
 * counts what arrived for identities other than the current one, for the switcher's dots, and
 * passes on the nudges that a team's documents or library changed, and identities' presence.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { NodeAgentPresence, NodeChange, NodeWakeItem } from '../api/owner.ts';
import type { StreamHandle, StreamState } from '../api/sse.ts';
import { useSessionStore } from './session.ts';

export const useLiveStore = defineStore('live', () => {
  const session = useSessionStore();
  const state = ref<StreamState>('stopped');
  /** Why the stream is not open, in words. */
  const detail = ref<string | null>(null);
  /** agent_id → items that arrived since that identity was last current. */
  const fresh = ref<Record<string, number>>({});

  const itemListeners = new Set<(item: NodeWakeItem) => void>();
  const changeListeners = new Set<(change: NodeChange) => void>();
  const presenceListeners = new Set<(presence: NodeAgentPresence) => void>();
  const openListeners = new Set<() => void>();
  let handle: StreamHandle | null = null;
  let current: string | null = null;

  function start(): void {
    stop();
    handle = session.api().streamWake({
      onItem: (item) => {
        if (item.agent_id !== current) fresh.value = { ...fresh.value, [item.agent_id]: (fresh.value[item.agent_id] ?? 0) + 1 };
        for (const listener of itemListeners) listener(item);
      },
      onChange: (change) => {
        for (const listener of changeListeners) listener(change);
      },
      onPresence: (presence) => {
        for (const listener of presenceListeners) listener(presence);
      },
      onState: (next, why) => {
        state.value = next;
        detail.value = why;
        // Nothing is replayed across a reconnect: listeners catch up from the node.
        if (next === 'open') reload();
      },
      // The node says the feed missed what it could not replay: catch up the same way.
      onReset: reload,
    });
  }

  /** Every view re-reads what it shows from the node. */
  function reload(): void {
    for (const listener of openListeners) listener();
  }

  function stop(): void {
    handle?.close();
    handle = null;
  }

  /** Calls `listener` for every new item; returns the unsubscribe. */
  function onItem(listener: (item: NodeWakeItem) => void): () => void {
    itemListeners.add(listener);
    return () => itemListeners.delete(listener);
  }

  /** Calls `listener` for every change nudge; returns the unsubscribe. */
  function onChange(listener: (change: NodeChange) => void): () => void {
    changeListeners.add(listener);
    return () => changeListeners.delete(listener);
  }

  /** Calls `listener` whenever an identity of this node comes online or goes offline; returns the unsubscribe. */
  function onPresence(listener: (presence: NodeAgentPresence) => void): () => void {
    presenceListeners.add(listener);
    return () => presenceListeners.delete(listener);
  }

  /** Calls `listener` each time the stream (re)opens, and when the node says the feed missed items (`reset`): re-read from the node. */
  function onOpen(listener: () => void): () => void {
    openListeners.add(listener);
    return () => openListeners.delete(listener);
  }

  /** The identity now current: its items are shown in place, not counted. */
  function setCurrent(agentId: string | null): void {
    current = agentId;
    if (agentId !== null && fresh.value[agentId] !== undefined) {
      const next = { ...fresh.value };
      delete next[agentId];
      fresh.value = next;
    }
  }

  return { state, detail, fresh, start, stop, onItem, onChange, onPresence, onOpen, setCurrent };
});
