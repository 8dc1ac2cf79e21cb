/**
 * Mail for the current identity: the inbox (or its unread part, or the archive), paged from the
 * node; the open message and what can be done to it (mark read or unread, archive, delete:
 * optimistic, put back with the node's reason when it refuses). New mail arrives from the live
 * feed and is highlighted for a few seconds; a change made elsewhere (an agent or another window
 * archiving, deleting, marking read or unread) arrives as a `mail_changed` nudge and the list is
 * read again. The other folders have their own stores, which this one tells whose mail is shown:
 * Sent (mail-sent.ts) and "Sent to other nodes" (mail-outbound.ts), re-read when shown, by the
 * view's timer, and when mail arrives (a bounce arrives as mail). Sends in flight: mail-outbox.ts.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { MailMessage } from '../api/mail.ts';
import type { NodeChange, NodeWakeItem } from '../api/owner.ts';
import { useFresh } from '../composables/useFresh.ts';
import { usePagedList } from '../composables/usePagedList.ts';
import { errorMessage } from '../lib/format.ts';
import { mergeMessages, nextAfterRemoval, patchMessage, placeChanged, withoutMessage, type MailFolder } from '../lib/mail.ts';
import { useLiveStore } from './live.ts';
import { useOutboundStore } from './mail-outbound.ts';
import { useSentStore } from './mail-sent.ts';
import { useSessionStore } from './session.ts';
import { useUnreadStore } from './unread.ts';

/** lib/mail.ts says what each is; Sent has its own store (mail-sent.ts). */
export type Folder = MailFolder;

/** Folders listed from the inbox route (`messages`). */
const INBOX_FOLDERS: readonly Folder[] = ['inbox', 'unread', 'archive'];

/** Said over the list after an archive (with a way back), a delete, or a draft kept (with Discard). */
export interface MailNotice {
  text: string;
  undo: (() => void) | null;
  /** Another thing to do about it ("Discard" a kept draft); the notice goes once done. */
  action?: { label: string; run: () => void };
}

const PAGE = 100;
/** A long inbox is read again in pages this size (the node's most). */
const RELOAD_PAGE = 200;
/** Changes made elsewhere close together (an agent archiving twenty messages) are read back together. */
const CHANGED_DEBOUNCE_MS = 250;
/** How long the "Archived. Undo" notice stays. */
const NOTICE_MS = 8000;
/** How long new mail stays highlighted. */
const FRESH_MS = 6000;

export const useMailStore = defineStore('mail', () => {
  const session = useSessionStore();
  const live = useLiveStore();
  const unread = useUnreadStore();
  const sent = useSentStore();
  const outbound = useOutboundStore();

  /** Whose mail is loaded. */
  const agentId = ref<string | null>(null);
  const folder = ref<Folder>('inbox');
  const list = usePagedList<MailMessage>({
    read: async (before, limit) => {
      if (agentId.value === null) return { items: [], hasMore: false, next: null };
      const page = await api().inbox({ limit, ...listQuery(), before: before ?? undefined });
      return { items: page.messages, hasMore: page.has_more, next: page.next_before };
    },
    key: (m) => m.message_id,
    pageSize: PAGE,
    reloadPageSize: RELOAD_PAGE,
  });
  // Replaced whole on every change (never mutated): no deep reactivity over thousands of messages.
  const { items: messages, hasMore, loaded, loading, loadingMore, error: loadError } = list;
  const selectedId = ref<string | null>(null);
  /** Messages that just arrived live (highlighted). */
  const { fresh, mark: markFresh, clear: clearFresh } = useFresh(FRESH_MS);
  /** Why the last "mark read" failed, for the reading pane. */
  const ackError = ref<string | null>(null);
  /** Why the last archive, delete or mark unread failed, above the list. */
  const actionError = ref<string | null>(null);
  const notice = ref<MailNotice | null>(null);

  const selected = computed(() => messages.value.find((m) => m.message_id === selectedId.value) ?? null);

  function api() {
    if (agentId.value === null) throw new Error('No identity is selected.');
    return session.asIdentity(agentId.value).mail;
  }

  /** Shows `id`'s mail (loads it when another identity's was shown). */
  async function show(id: string | null): Promise<void> {
    if (id === agentId.value && loaded.value) return;
    agentId.value = id;
    list.reset();
    selectedId.value = null;
    clearFresh();
    actionError.value = null;
    notice.value = null;
    sent.reset(id);
    outbound.reset(id);
    await Promise.all([load(), folder.value === 'outbound' ? outbound.load() : folder.value === 'sent' ? sent.load() : Promise.resolve()]);
  }

  /** The inbox route's query for the folder shown. */
  function listQuery(): { unreadOnly: boolean; folder?: 'archive' } {
    return folder.value === 'archive' ? { unreadOnly: false, folder: 'archive' } : { unreadOnly: folder.value === 'unread' };
  }

  /** The folder shown, read again from the start as far as it had been read. */
  async function load(): Promise<void> {
    await list.load();
  }

  async function loadMore(): Promise<void> {
    await list.loadMore();
  }

  async function setFolder(next: Folder): Promise<void> {
    if (folder.value === next) return;
    folder.value = next;
    actionError.value = null;
    // An Undo belongs to the list it was said over.
    notice.value = null;
    if (next === 'outbound') await outbound.load();
    else if (next === 'sent') await (sent.loaded ? sent.refresh() : sent.load());
    else {
      list.reset();
      selectedId.value = null;
      await load();
    }
  }

  function select(id: string | null): void {
    selectedId.value = id;
    ackError.value = null;
  }

  /** Acknowledges a message (marks it read): shown read at once, put back if the node refuses. */
  async function markRead(id: string): Promise<void> {
    const message = messages.value.find((m) => m.message_id === id);
    if (message === undefined || message.read_at !== null) return;
    const owner = agentId.value;
    const patch = (readAt: string | null) =>
      (messages.value = messages.value.map((m) => (m.message_id === id ? { ...m, read_at: readAt } : m)));
    patch(new Date().toISOString());
    unread.mailRead();
    ackError.value = null;
    try {
      const answer = await ours(() => api().ack(id));
      if (owner === agentId.value) patch(answer.acknowledged_at);
    } catch (error) {
      if (owner !== agentId.value) return;
      patch(null);
      ackError.value = `Could not mark it read: ${errorMessage(error)}`;
      unread.schedule(0);
    }
  }

  // ------------------------------------------------------------------ archive, delete, unread

  /**
   * Takes `id` out of the list shown (it left this folder) and shows the next one; returns how to
   * put it back if the node refuses.
   */
  function takeOut(id: string): () => void {
    const message = messages.value.find((m) => m.message_id === id);
    const wasSelected = selectedId.value === id;
    const next = nextAfterRemoval(messages.value, id);
    messages.value = withoutMessage(messages.value, id);
    if (wasSelected) select(next);
    return () => {
      if (message === undefined) return;
      messages.value = mergeMessages(messages.value, [message]);
      if (wasSelected) select(id);
    };
  }

  /** Runs a change at the node; on a refusal puts things back and says why. */
  async function change(work: () => Promise<unknown>, putBack: () => void, what: string): Promise<boolean> {
    const owner = agentId.value;
    actionError.value = null;
    try {
      await ours(work);
      return true;
    } catch (error) {
      if (owner === agentId.value) {
        putBack();
        actionError.value = `Could not ${what}: ${errorMessage(error)}`;
      }
      unread.schedule(0);
      return false;
    }
  }

  function say(text: string, undo: (() => void) | null, action?: MailNotice['action']): void {
    const shown: MailNotice = { text, undo, ...(action ? { action } : {}) };
    notice.value = shown;
    setTimeout(() => {
      if (notice.value === shown) notice.value = null;
    }, NOTICE_MS);
  }

  /** Archives (the node marks it read); "Undo" puts it back as it was, unread included. */
  async function archive(id: string): Promise<void> {
    const message = messages.value.find((m) => m.message_id === id);
    if (message === undefined || folder.value === 'archive') return;
    const wasUnread = message.read_at === null;
    const putBack = takeOut(id);
    if (wasUnread) unread.mailRead();
    const done = await change(() => api().move(id, 'archive'), putBack, 'archive it');
    if (done) say(`Archived “${message.subject || '(no subject)'}”.`, () => void restore(message, wasUnread));
  }

  /** Undo of an archive: back in the inbox, unread again if it was. */
  async function restore(message: MailMessage, wasUnread: boolean): Promise<void> {
    notice.value = null;
    const owner = agentId.value;
    try {
      const state = await ours(() => api().move(message.message_id, wasUnread ? 'unread' : 'unarchive'));
      if (owner !== agentId.value) return;
      if (folder.value !== 'archive' && (folder.value !== 'unread' || state.read_at === null)) {
        // Back in its place, not opened: opening it would mark it read again.
        messages.value = mergeMessages(messages.value, [{ ...message, archived_at: null, read_at: state.read_at }]);
      }
      if (wasUnread) unread.schedule(0);
    } catch (error) {
      if (owner === agentId.value) actionError.value = `Could not undo: ${errorMessage(error)}`;
    }
  }

  /** From the Archive back to the inbox, as it is. */
  async function unarchive(id: string): Promise<void> {
    if (folder.value !== 'archive' || !messages.value.some((m) => m.message_id === id)) return;
    const putBack = takeOut(id);
    if (await change(() => api().move(id, 'unarchive'), putBack, 'move it to the inbox')) say('Moved to the inbox.', null);
  }

  /** Unread again (and, from the Archive, back in the inbox). */
  async function markUnread(id: string): Promise<void> {
    const message = messages.value.find((m) => m.message_id === id);
    if (message === undefined || message.read_at === null) return;
    const putBack =
      folder.value === 'archive'
        ? takeOut(id)
        : (() => {
            messages.value = patchMessage(messages.value, id, { read_at: null });
            return () => (messages.value = patchMessage(messages.value, id, { read_at: message.read_at }));
          })();
    if (await change(() => api().move(id, 'unread'), putBack, 'mark it unread')) unread.schedule(0);
  }

  /** Deletes it from this identity's mail for good (the view asked first). */
  async function remove(id: string): Promise<void> {
    const message = messages.value.find((m) => m.message_id === id);
    if (message === undefined) return;
    const putBack = takeOut(id);
    if (message.read_at === null) unread.mailRead();
    if (await change(() => api().delete(id), putBack, 'delete it')) say(`Deleted “${message.subject || '(no subject)'}”.`, null);
  }

  function dismissNotice(): void {
    notice.value = null;
  }

  /** A new mail for the identity shown: fetched by id, merged in (inbox and unread), highlighted. */
  async function arrived(item: NodeWakeItem): Promise<void> {
    if (item.type !== 'mail_message' || item.agent_id !== agentId.value || !loaded.value) return;
    // A bounce arrives as mail: the delivery states may have changed.
    if (folder.value === 'outbound' || outbound.loaded) void outbound.load();
    if (sent.loaded) void sent.refresh();
    if (folder.value !== 'inbox' && folder.value !== 'unread') return;
    const current = list.ticket();
    try {
      const message = await api().message(item.message_id);
      if (message === null || !current()) return;
      messages.value = mergeMessages(messages.value, [message]);
      markFresh(message.message_id);
    } catch {
      // The next reconnect or reload catches up.
    }
  }

  // ------------------------------------------------------------------ changes made elsewhere

  /** Our own changes on their way to the node, and how many were ever made here. */
  let changing = 0;
  let changesMade = 0;
  /** Messages the node said changed, not yet read again. */
  const changed = new Set<string>();
  let changedTimer: ReturnType<typeof setTimeout> | undefined;

  /** One of our own changes: what is read back meanwhile is read again after it (it would undo it on screen). */
  async function ours<T>(work: () => Promise<T>): Promise<T> {
    changing++;
    changesMade++;
    try {
      return await work();
    } finally {
      changing--;
    }
  }

  function scheduleChanged(): void {
    clearTimeout(changedTimer);
    changedTimer = setTimeout(() => void showChanged(), CHANGED_DEBOUNCE_MS);
  }

  /**
   * Messages changed elsewhere (an agent or another window archived, deleted, marked read or
   * unread them; our own changes come back too): each read again and shown as the node now has
   * it, in or out of the folder shown. A burst larger than a page is one re-read of the folder.
   */
  async function showChanged(): Promise<void> {
    const ids = [...changed];
    changed.clear();
    if (ids.length === 0 || agentId.value === null || !loaded.value || !INBOX_FOLDERS.includes(folder.value)) return;
    const again = (): void => {
      for (const id of ids) changed.add(id);
      scheduleChanged();
    };
    // Our own change still on its way: its answer, then this.
    if (changing > 0) return again();
    if (ids.length > PAGE) {
      await list.load();
      return;
    }
    const current = list.ticket();
    const shownFolder = folder.value as 'inbox' | 'unread' | 'archive';
    const at = changesMade;
    const read = await Promise.all(ids.map((id) => api().message(id).then((m) => [id, m] as const, () => null)));
    if (!current() || folder.value !== shownFolder) return;
    if (changesMade !== at) return again();
    let next = messages.value;
    for (const entry of read) if (entry !== null) next = placeChanged(next, entry[0], entry[1], shownFolder);
    messages.value = next;
  }

  function changedElsewhere(change: NodeChange): void {
    if (change.kind !== 'mail_changed' || change.agentId === undefined || change.agentId !== agentId.value || change.messageId === undefined) return;
    changed.add(change.messageId);
    scheduleChanged();
  }

  /** Selects a message by id, fetching it when it is not in the list (a notification's link). */
  async function reveal(id: string): Promise<void> {
    if (!INBOX_FOLDERS.includes(folder.value)) await setFolder('inbox');
    if (!messages.value.some((m) => m.message_id === id)) {
      try {
        const message = await api().message(id);
        if (message === null) return;
        // It may have been archived meanwhile: show it where it is.
        const where: Folder = message.archived_at ? 'archive' : folder.value === 'archive' ? 'inbox' : folder.value;
        if (where !== folder.value) await setFolder(where);
        messages.value = mergeMessages(messages.value, [message]);
      } catch (error) {
        loadError.value = errorMessage(error);
        return;
      }
    }
    select(id);
  }

  /** Marks the sender's messages as from a contact once they were added. */
  function markContact(address: string): void {
    messages.value = messages.value.map((m) => (m.from_address === address ? { ...m, is_contact: true } : m));
  }

  live.onItem((item) => void arrived(item));
  live.onChange(changedElsewhere);
  // Nothing is replayed across a reconnect: what arrived or changed meanwhile is read again.
  live.onOpen(() => {
    if (agentId.value !== null && loaded.value && INBOX_FOLDERS.includes(folder.value)) void list.load();
  });

  return {
    agentId,
    folder,
    messages,
    hasMore,
    loaded,
    loading,
    loadingMore,
    loadError,
    selectedId,
    selected,
    fresh,
    ackError,
    actionError,
    notice,
    show,
    load,
    loadMore,
    setFolder,
    select,
    reveal,
    markRead,
    markUnread,
    archive,
    unarchive,
    remove,
    dismissNotice,
    say,
    markContact,
  };
});
