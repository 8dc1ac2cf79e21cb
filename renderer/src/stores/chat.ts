/**
 * Chat for the current identity: its sessions, read from the node a page at a time (newest
 * first, more as the list scrolls; a refresh reads the first page again and keeps the rest), and
 * the open conversation over the session's live stream (messages and the others' read receipts).
 * The history says how far each participant has read and who left, so receipts and membership
 * are the same after a reload. Sending, leaving and rejoining: composables/useChatSending.ts. In
 * a session with someone on another node, what I sent also shows its delivery state from the
 * node's outbound list (composables/useChatDelivery.ts). The rows' summaries and order:
 * lib/chat-sessions.ts; the conversation's: lib/chat.ts.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ChatMember } from '../api/chat.ts';
import type { StreamHandle, StreamState } from '../api/sse.ts';
import { useChatDelivery } from '../composables/useChatDelivery.ts';
import { useChatSending } from '../composables/useChatSending.ts';
import { useChatSessions } from '../composables/useChatSessions.ts';
import { conversationOthers, conversationStatus, isMine, memberStates, mergeMessages, receiptsFrom } from '../lib/chat.ts';
import type { ConversationEntry } from '../lib/chat.ts';
import { sessionTitle } from '../lib/chat-sessions.ts';
import { errorMessage } from '../lib/format.ts';
import { recipientFields } from '../lib/recipients.ts';
import type { Recipient } from '../lib/recipients.ts';
import { useDirectoryStore } from './directory.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';
import { useUnreadStore } from './unread.ts';

/** Messages of the history read when a conversation opens. */
const HISTORY = 200;

export const useChatStore = defineStore('chat', () => {
  const session = useSessionStore();
  const directory = useDirectoryStore();
  const live = useLiveStore();
  const unread = useUnreadStore();

  const agentId = ref<string | null>(null);
  const openId = ref<string | null>(null);
  const { sessions, last, loaded, loadingMore, loadError, fresh, loadSessions, loadMore, noteLast, arrived, ...sessionList } = useChatSessions({
    agentId,
    openId,
    api,
  });
  const entries = ref<ConversationEntry[]>([]);
  /** reader alias → the message they have read up to (the history's positions, then read_receipt frames). */
  const receipts = ref<Record<string, string>>({});
  /** The open session's participants as its history said (read positions, who had left). */
  const members = ref<ChatMember[]>([]);
  const conversationLoading = ref(false);
  const conversationError = ref<string | null>(null);
  const streamState = ref<StreamState>('stopped');
  const streamDetail = ref<string | null>(null);
  const handle = shallowRef<StreamHandle | null>(null);
  let markedUpTo: string | null = null;
  let conversationGeneration = 0;

  const me = computed(() => directory.identities.find((identity) => identity.agent_id === agentId.value) ?? null);
  const openSession = computed(() => sessions.value.find((s) => s.session_id === openId.value) ?? null);
  /** Who is in the open chat now: the history's word, overtaken by the newer messages. */
  const membership = computed(() => memberStates(members.value, entries.value, agentId.value));
  const youLeft = computed(() => membership.value.some((m) => m.mine && m.leftAt !== null));
  /** The open chat's other participants: from its list row, or its history when the row is not read yet. */
  const openOthers = computed(() => conversationOthers(openSession.value, members.value, agentId.value));
  const openTitle = computed(() => (openOthers.value.length > 0 ? sessionTitle({ participants: openOthers.value.map((o) => o.alias) }) : 'Chat'));
  const status = computed(() => conversationStatus(membership.value, openSession.value?.sender_waiting === true));

  const delivery = useChatDelivery({
    openId: () => openId.value,
    openSession: () => openSession.value,
    loading: () => conversationLoading.value,
    mine: () => entries.value.filter((e) => e.delivery === 'sent' && isMine(e.message, agentId.value)).map((e) => e.key),
    read: () => api().mail.outbound(),
  });
  const { remoteAddresses, outbound } = delivery;
  const { send, leave, rejoin, retry, discard, takeBack, plaintextOffer, dropPlaintextOffer } = useChatSending({
    openId,
    me,
    youLeft,
    entries,
    generation: () => conversationGeneration,
    api,
    noteLast,
    deliveryChanged: () => void delivery.load(),
  });

  function api() {
    if (agentId.value === null) throw new Error('No identity is selected.');
    return session.asIdentity(agentId.value);
  }

  /** Shows `id`'s chats (a different identity closes the open conversation). */
  async function show(id: string | null): Promise<void> {
    if (id === agentId.value && loaded.value) return;
    closeConversation();
    agentId.value = id;
    sessionList.reset();
    await loadSessions();
  }

  // ------------------------------------------------------------------ the open conversation

  function closeConversation(): void {
    delivery.clear();
    dropPlaintextOffer();
    handle.value?.close();
    handle.value = null;
    conversationGeneration += 1;
    openId.value = null;
    entries.value = [];
    receipts.value = {};
    members.value = [];
    conversationError.value = null;
    streamState.value = 'stopped';
    markedUpTo = null;
  }

  async function openConversation(sessionId: string): Promise<void> {
    // Open, or on its way: nothing to do. One whose history failed is read again when chosen again.
    if (openId.value === sessionId && conversationError.value === null) return;
    closeConversation();
    openId.value = sessionId;
    const mine = conversationGeneration;
    conversationLoading.value = true;
    const client = api().chat;
    try {
      const history = await client.conversation(sessionId, HISTORY);
      if (mine !== conversationGeneration) return;
      entries.value = mergeMessages(entries.value, history.messages);
      members.value = history.participants;
      // Receipts that arrived live while the history loaded are newer than its positions.
      receipts.value = { ...receiptsFrom(members.value, agentId.value), ...receipts.value };
      void delivery.load();
    } catch (error) {
      if (mine === conversationGeneration) conversationError.value = errorMessage(error);
      return;
    } finally {
      if (mine === conversationGeneration) conversationLoading.value = false;
    }
    handle.value = client.stream(sessionId, {
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

  /** Marks the open conversation read up to its newest message from someone else. */
  async function markRead(upTo: string): Promise<void> {
    const sessionId = openId.value;
    if (sessionId === null || upTo === markedUpTo) return;
    markedUpTo = upTo;
    sessionList.markSessionRead(sessionId);
    unread.chatRead(sessionId);
    try {
      await api().chat.markRead(sessionId, upTo);
    } catch {
      markedUpTo = null; // try again next time it is visible
    }
  }

  /**
   * Starts (or continues) a chat with `to`; opens it. Throws with the node's reason (an `ApiError`
   * whose code says when someone publishes no encryption key). `plaintext` sends the first message
   * as plaintext, only after the person confirmed it.
   */
  async function start(to: Recipient[], message: string, options: { plaintext?: boolean } = {}): Promise<string> {
    const result = await api().chat.start({ ...recipientFields(to), message, ...(options.plaintext === true ? { content_mode: 'legacy_plaintext_v1' } : {}) });
    await loadSessions();
    await openConversation(result.session_id);
    return result.session_id;
  }

  // ------------------------------------------------------------------ live

  live.onItem(arrived);
  // A refused chat message comes back as mail (a bounce from this node): read the states again.
  live.onItem((item) => {
    if (item.type === 'mail_message' && item.agent_id === agentId.value) void delivery.load();
  });
  live.onOpen(() => {
    if (loaded.value) void loadSessions();
    void delivery.load();
  });

  return {
    agentId,
    me,
    sessions,
    last,
    loaded,
    loadError,
    loadingMore,
    fresh,
    openId,
    openSession,
    remoteAddresses,
    outbound,
    entries,
    receipts,
    members,
    membership,
    youLeft,
    status,
    openOthers,
    openTitle,
    conversationLoading,
    conversationError,
    streamState,
    streamDetail,
    show,
    loadSessions,
    loadMore,
    openConversation,
    closeConversation,
    markRead,
    send,
    leave,
    rejoin,
    retry,
    discard,
    takeBack,
    plaintextOffer,
    dropPlaintextOffer,
    start,
  };
});
