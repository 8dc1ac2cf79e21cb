/**
 * Chat for the current identity: its sessions (with each one's last message), and the open
 * conversation over the session's live stream (messages and the others' read receipts). Sends
 * are optimistic: shown at once as "Sending…", then confirmed, or marked failed with the node's
 * reason and a retry. In a session with someone on another node, what I sent also shows its
 * delivery state from the node's outbound list (queued, delivered, bounced), read again while
 * any of it is still queued.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import type { ChatMessage, ChatSession, NodeWakeItem, OutboundMail, StreamHandle, StreamState } from '../api/client.ts';
import { confirmSend, failSend, isMine, mergeMessages, pendingEntry, sortSessions } from '../lib/chat.ts';
import type { ConversationEntry, LastMessage } from '../lib/chat.ts';
import { chatDeliveryPending, chatOutboundIndex, remoteParticipants } from '../lib/federation.ts';
import { errorMessage } from '../lib/format.ts';
import { recipientFields } from '../lib/recipients.ts';
import type { Recipient } from '../lib/recipients.ts';
import { useDirectoryStore } from './directory.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';
import { useUnreadStore } from './unread.ts';

/** How many sessions get their last message fetched up front. */
const LAST_PREFETCH = 40;
const HISTORY = 200;
/** How often the delivery states are read again while a message to another node is queued. */
const OUTBOUND_POLL_MS = 5_000;

let localSeq = 0;

export const useChatStore = defineStore('chat', () => {
  const session = useSessionStore();
  const directory = useDirectoryStore();
  const live = useLiveStore();
  const unread = useUnreadStore();

  const agentId = ref<string | null>(null);
  const sessions = ref<ChatSession[]>([]);
  const last = ref<Record<string, LastMessage>>({});
  const loaded = ref(false);
  const loadError = ref<string | null>(null);

  const openId = ref<string | null>(null);
  const entries = ref<ConversationEntry[]>([]);
  /** reader alias → the message they have read up to (from read_receipt frames). */
  const receipts = ref<Record<string, string>>({});
  const conversationLoading = ref(false);
  const conversationError = ref<string | null>(null);
  const streamState = ref<StreamState>('stopped');
  const streamDetail = ref<string | null>(null);
  /** Session ids that just got a message live (highlighted in the list). */
  const fresh = ref<Record<string, true>>({});

  const handle = shallowRef<StreamHandle | null>(null);
  let markedUpTo: string | null = null;
  let generation = 0;
  let conversationGeneration = 0;

  const me = computed(() => directory.identities.find((identity) => identity.agent_id === agentId.value) ?? null);
  const openSession = computed(() => sessions.value.find((s) => s.session_id === openId.value) ?? null);

  /** The open session's participants on another node, by address (the node hosts the rest). */
  const remoteAddresses = computed(() => {
    const open = openSession.value;
    return open === null ? [] : remoteParticipants(open, directory.namespaces.map((n) => n.domain));
  });
  /** My chat messages to other nodes, by message_id, as the node's outbound list last said. */
  const outbound = shallowRef<ReadonlyMap<string, OutboundMail>>(new Map());
  let outboundTimer: ReturnType<typeof setTimeout> | undefined;

  function api() {
    if (agentId.value === null) throw new Error('No identity is selected.');
    return session.asIdentity(agentId.value);
  }

  function lastOf(message: ChatMessage): LastMessage {
    return {
      body: message.body,
      from_alias: message.from_alias,
      created_at: message.created_at,
      mine: isMine(message, agentId.value),
      leaving: message.sender_leaving,
    };
  }

  /** Shows `id`'s chats (a different identity closes the open conversation). */
  async function show(id: string | null): Promise<void> {
    if (id === agentId.value && loaded.value) return;
    closeConversation();
    agentId.value = id;
    sessions.value = [];
    last.value = {};
    fresh.value = {};
    loaded.value = false;
    await loadSessions();
  }

  async function loadSessions(): Promise<void> {
    const mine = ++generation;
    if (agentId.value === null) {
      loaded.value = true;
      return;
    }
    try {
      const list = await api().chatSessions();
      if (mine !== generation) return;
      const previous = new Map(sessions.value.map((s) => [s.session_id, s]));
      sessions.value = sortSessions(list);
      loadError.value = null;
      // Last messages: fetched for sessions that are new or moved since we last looked.
      const stale = list
        .filter((s) => {
          const before = previous.get(s.session_id);
          return last.value[s.session_id] === undefined || before === undefined || before.last_activity !== s.last_activity;
        })
        .slice(0, LAST_PREFETCH);
      await Promise.all(
        stale.map(async (s) => {
          try {
            const [message] = await api().chatHistory(s.session_id, 1);
            if (message !== undefined && mine === generation) last.value = { ...last.value, [s.session_id]: lastOf(message) };
          } catch {
            // The row shows without a preview.
          }
        }),
      );
    } catch (error) {
      if (mine === generation) loadError.value = errorMessage(error);
    } finally {
      if (mine === generation) loaded.value = true;
    }
  }

  // ------------------------------------------------------------------ the open conversation

  function closeConversation(): void {
    clearTimeout(outboundTimer);
    outbound.value = new Map();
    handle.value?.close();
    handle.value = null;
    conversationGeneration += 1;
    openId.value = null;
    entries.value = [];
    receipts.value = {};
    conversationError.value = null;
    streamState.value = 'stopped';
    markedUpTo = null;
  }

  async function openConversation(sessionId: string): Promise<void> {
    if (openId.value === sessionId) return;
    closeConversation();
    openId.value = sessionId;
    const mine = conversationGeneration;
    conversationLoading.value = true;
    const client = api();
    try {
      const history = await client.chatHistory(sessionId, HISTORY);
      if (mine !== conversationGeneration) return;
      entries.value = mergeMessages(entries.value, history);
      void loadOutbound();
    } catch (error) {
      if (mine === conversationGeneration) conversationError.value = errorMessage(error);
      return;
    } finally {
      if (mine === conversationGeneration) conversationLoading.value = false;
    }
    handle.value = client.streamSession(sessionId, {
      // Reconnects replay what was stored after the newest message we hold.
      after: () => entries.value.filter((e) => e.delivery === 'sent').at(-1)?.message.created_at ?? null,
      onEvent: (event) => {
        if (mine !== conversationGeneration) return;
        if (event.kind === 'message') {
          entries.value = mergeMessages(entries.value, [event.message]);
          noteLast(sessionId, event.message);
        } else if (event.receipt.reader_alias !== me.value?.alias) {
          receipts.value = { ...receipts.value, [event.receipt.reader_alias]: event.receipt.up_to_message_id };
        }
      },
      onState: (state, detail) => {
        if (mine !== conversationGeneration) return;
        streamState.value = state;
        streamDetail.value = detail;
      },
    });
  }

  function noteLast(sessionId: string, message: ChatMessage): void {
    const current = last.value[sessionId];
    if (current !== undefined && current.created_at > message.created_at) return;
    last.value = { ...last.value, [sessionId]: lastOf(message) };
    sessions.value = sortSessions(
      sessions.value.map((s) => (s.session_id === sessionId ? { ...s, last_activity: message.created_at } : s)),
    );
  }

  /** Marks the open conversation read up to its newest message from someone else. */
  async function markRead(upTo: string): Promise<void> {
    const sessionId = openId.value;
    if (sessionId === null || upTo === markedUpTo) return;
    markedUpTo = upTo;
    sessions.value = sessions.value.map((s) => (s.session_id === sessionId ? { ...s, unread_count: 0 } : s));
    unread.chatRead(sessionId);
    try {
      await api().markChatRead(sessionId, upTo);
    } catch {
      markedUpTo = null; // try again next time it is visible
    }
  }

  /** Sends into the open conversation (optimistic). */
  async function send(body: string, options: { leaving?: boolean } = {}): Promise<void> {
    const sessionId = openId.value;
    const identity = me.value;
    if (sessionId === null || identity === null) return;
    const key = `local-${++localSeq}`;
    entries.value = [...entries.value, pendingEntry(key, identity, sessionId, body, options.leaving ?? false, new Date())];
    await deliver(key);
  }

  async function deliver(key: string): Promise<void> {
    const entry = entries.value.find((e) => e.key === key);
    const sessionId = openId.value;
    if (entry === undefined || sessionId === null) return;
    const mine = conversationGeneration;
    entries.value = entries.value.map((e) => (e.key === key ? { ...e, delivery: 'sending', error: null } : e));
    try {
      const answer = await api().sendChat(sessionId, entry.message.body, { leaving: entry.message.sender_leaving });
      if (mine !== conversationGeneration) return;
      entries.value = confirmSend(entries.value, key, answer.message_id);
      noteLast(sessionId, { ...entry.message, message_id: answer.message_id });
      void loadOutbound();
    } catch (error) {
      if (mine === conversationGeneration) entries.value = failSend(entries.value, key, errorMessage(error));
    }
  }

  // ------------------------------------------------------------------ delivery to other nodes

  function myMessageIds(): string[] {
    return entries.value.filter((e) => e.delivery === 'sent' && isMine(e.message, agentId.value)).map((e) => e.key);
  }

  /** Reads the delivery states again (only for a session with someone on another node). */
  async function loadOutbound(): Promise<void> {
    if (openId.value === null || remoteAddresses.value.length === 0) return;
    const mine = conversationGeneration;
    clearTimeout(outboundTimer);
    try {
      const rows = await api().outbound();
      if (mine !== conversationGeneration) return;
      outbound.value = chatOutboundIndex(rows);
    } catch {
      // The last states stay; the next send or arrival reads them again.
      if (mine !== conversationGeneration) return;
    }
    clearTimeout(outboundTimer);
    if (chatDeliveryPending(myMessageIds(), outbound.value)) {
      outboundTimer = setTimeout(() => {
        if (mine === conversationGeneration) void loadOutbound();
      }, OUTBOUND_POLL_MS);
    }
  }

  // Once the open session turns out to have someone on another node (the session list or the
  // node's domains can arrive after the conversation opened).
  watch(
    () => `${openId.value ?? ''}|${remoteAddresses.value.length > 0}`,
    () => {
      // While the history loads, its end reads them (with my messages known, so polling can start).
      if (!conversationLoading.value) void loadOutbound();
    },
  );

  function retry(key: string): void {
    void deliver(key);
  }

  function discard(key: string): void {
    entries.value = entries.value.filter((e) => e.key !== key || e.delivery === 'sent');
  }

  /** Starts (or continues) a chat with `to`; opens it. Throws with the node's reason. */
  async function start(to: Recipient[], message: string): Promise<string> {
    const result = await api().startChat({ ...recipientFields(to), message });
    await loadSessions();
    await openConversation(result.session_id);
    return result.session_id;
  }

  // ------------------------------------------------------------------ live

  function arrived(item: NodeWakeItem): void {
    if (item.type !== 'chat_message' || item.agent_id !== agentId.value || !loaded.value || item.session_id === undefined) return;
    const sessionId = item.session_id;
    const known = sessions.value.some((s) => s.session_id === sessionId);
    if (!known) {
      void loadSessions();
    } else {
      const open = sessionId === openId.value;
      sessions.value = sortSessions(
        sessions.value.map((s) =>
          s.session_id === sessionId ? { ...s, last_activity: item.created_at, unread_count: open ? s.unread_count : s.unread_count + 1 } : s,
        ),
      );
      const current = last.value[sessionId];
      if (current === undefined || current.created_at <= item.created_at) {
        last.value = {
          ...last.value,
          [sessionId]: { body: item.preview ?? '', from_alias: item.from_alias, created_at: item.created_at, mine: false, leaving: false },
        };
      }
    }
    if (sessionId !== openId.value) {
      fresh.value = { ...fresh.value, [sessionId]: true };
      setTimeout(() => {
        const next = { ...fresh.value };
        delete next[sessionId];
        fresh.value = next;
      }, 6000);
    }
  }

  // The badges' pending list is refreshed on every arrival: it also says who is in a chat now.
  watch(
    () => unread.pending,
    (pending) => {
      if (agentId.value === null || agentId.value !== directory.currentIdentity?.agent_id) return;
      const byId = new Map(pending.map((item) => [item.session_id, item]));
      sessions.value = sessions.value.map((s) => {
        const item = byId.get(s.session_id);
        if (item === undefined) return s;
        const unreadCount = s.session_id === openId.value ? s.unread_count : item.unread_count;
        return { ...s, sender_waiting: item.sender_waiting, unread_count: unreadCount };
      });
    },
  );

  live.onItem(arrived);
  // A refused chat message comes back as mail (a bounce from this node): read the states again.
  live.onItem((item) => {
    if (item.type === 'mail_message' && item.agent_id === agentId.value) void loadOutbound();
  });
  live.onOpen(() => {
    if (loaded.value) void loadSessions();
    void loadOutbound();
  });

  return {
    agentId,
    me,
    sessions,
    last,
    loaded,
    loadError,
    fresh,
    openId,
    openSession,
    remoteAddresses,
    outbound,
    entries,
    receipts,
    conversationLoading,
    conversationError,
    streamState,
    streamDetail,
    show,
    loadSessions,
    openConversation,
    closeConversation,
    markRead,
    send,
    retry,
    discard,
    start,
    loadOutbound,
  };
});
