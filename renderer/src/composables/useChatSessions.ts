/**
 * The chat sessions list of the identity shown (stores/chat.ts says whose, and which session is
 * open): read from the node a page at a time, newest first, more as the list scrolls; a refresh
 * reads the first page again and keeps the rest. Each row says its last message
 * (lib/chat-sessions.ts), moves up when a message arrives or is sent, and is highlighted for a
 * few seconds when one arrives while it is not open. The unread badge's pending list
 * (stores/unread.ts) keeps the rows' unread counts and "waiting for you" current.
 */
import { shallowRef, watch, type Ref } from 'vue';
import type { ChatMessage, ChatSession } from '../api/chat.ts';
import type { IdentityClient } from '../api/identity.ts';
import type { NodeWakeItem } from '../api/owner.ts';
import { isMine } from '../lib/chat.ts';
import { lastFromMessage, lastFromWake, moveToFront, withSummaries, type LastMessage } from '../lib/chat-sessions.ts';
import { useDirectoryStore } from '../stores/directory.ts';
import { useUnreadStore } from '../stores/unread.ts';
import { useFresh } from './useFresh.ts';
import { usePagedList } from './usePagedList.ts';

/** Sessions per page from the node (the list asks for the next page as it nears the end). */
const PAGE = 100;
/** How long a session that just got a message stays highlighted in the list. */
const FRESH_MS = 6000;

export interface ChatShown {
  agentId: Readonly<Ref<string | null>>;
  openId: Readonly<Ref<string | null>>;
  api: () => IdentityClient;
}

export function useChatSessions(shown: ChatShown) {
  const { agentId, openId } = shown;
  const directory = useDirectoryStore();
  const unread = useUnreadStore();

  const list = usePagedList<ChatSession>({
    read: async (before, limit) => {
      const owner = agentId.value;
      if (owner === null) return { items: [], hasMore: false, next: null };
      const page = await shown.api().chat.sessionsPage({ limit, before });
      // Every page read says what its rows' last messages were (newer ones already known stay).
      if (owner === agentId.value) last.value = withSummaries(last.value, page.sessions, agentId.value);
      return { items: page.sessions, hasMore: page.has_more, next: page.next_before };
    },
    key: (s) => s.session_id,
    pageSize: PAGE,
  });
  // Shallow: a list of 100,000 sessions is replaced, never changed in place, so it needs no deep proxies.
  const { items: sessions, loaded, loadingMore, error: loadError } = list;
  const last = shallowRef<Record<string, LastMessage>>({});
  /** Sessions that just got a message live (highlighted in the list). */
  const { fresh, mark: markFresh, clear: clearFresh } = useFresh(FRESH_MS);

  /** Another identity is shown: nothing of the last one's list stays. */
  function reset(): void {
    list.reset();
    last.value = {};
    clearFresh();
  }

  /**
   * Reads the first page again: its sessions take their place at the top, the ones read further
   * down stay below (anything that moved is on the fresh page), so a refresh costs one page
   * however far the list was scrolled.
   */
  async function loadSessions(): Promise<void> {
    await list.refreshTop();
  }

  /** The next page, when the list has more (asked for as the list nears its end). */
  async function loadMore(): Promise<void> {
    await list.loadMore();
  }

  /**
   * A message is now in a session (sent, or heard on its stream): its row says so and moves up.
   * `endToEnd` is what is known of how a send of mine went (null until its copy comes back, which
   * then takes its place, whatever the two clocks said).
   */
  function noteLast(sessionId: string, message: ChatMessage, endToEnd: boolean | null = message.end_to_end): void {
    const current = last.value[sessionId];
    if (current !== undefined && current.created_at > message.created_at && current.message_id !== message.message_id) return;
    last.value = { ...last.value, [sessionId]: lastFromMessage(message, agentId.value, endToEnd) };
    const mine = isMine(message, agentId.value);
    sessions.value = moveToFront(sessions.value, sessionId, (s) => ({
      ...s,
      last_activity: message.created_at,
      // My own goodbye or return changes what the row says about me at once.
      you_left: mine ? message.sender_leaving : s.you_left,
    }));
  }

  /** The session was read here: its row shows nothing unread at once. */
  function markSessionRead(sessionId: string): void {
    sessions.value = sessions.value.map((s) => (s.session_id === sessionId ? { ...s, unread_count: 0 } : s));
  }

  /** A chat message arrived for someone (the owner feed): its row moves up, or the list is read again when it is new. */
  function arrived(item: NodeWakeItem): void {
    if (item.type !== 'chat_message' || item.agent_id !== agentId.value || !loaded.value) return;
    const sessionId = item.session_id;
    const known = sessions.value.some((s) => s.session_id === sessionId);
    if (!known) {
      void loadSessions();
    } else {
      const open = sessionId === openId.value;
      sessions.value = moveToFront(sessions.value, sessionId, (s) => ({
        ...s,
        last_activity: item.created_at,
        unread_count: open ? s.unread_count : s.unread_count + 1,
      }));
      const current = last.value[sessionId];
      // A goodbye or a return says so in the row at once, as the node's summary will.
      if (current === undefined || current.created_at <= item.created_at) last.value = { ...last.value, [sessionId]: lastFromWake(item) };
    }
    if (sessionId !== openId.value) markFresh(sessionId);
  }

  // The badges' pending list is refreshed on every arrival: it also says who is in a chat now, and
  // it lists every session with something unread.
  watch(
    () => unread.pending,
    (pending) => {
      if (agentId.value === null || agentId.value !== directory.currentIdentity?.agent_id) return;
      const byId = new Map(pending.map((item) => [item.session_id, item]));
      sessions.value = sessions.value.map((s) => {
        const item = byId.get(s.session_id);
        // Not pending: nothing in it is unread (read here or in another window), whatever the row last said.
        if (item === undefined) return s.unread_count === 0 ? s : { ...s, unread_count: 0 };
        const unreadCount = s.session_id === openId.value ? s.unread_count : item.unread_count;
        return { ...s, sender_waiting: item.sender_waiting, unread_count: unreadCount };
      });
    },
  );

  return { sessions, last, loaded, loadingMore, loadError, fresh, reset, loadSessions, loadMore, noteLast, markSessionRead, arrived };
}
