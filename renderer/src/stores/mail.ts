/**
 * Mail for the current identity: the inbox (or its unread part, or the archive), paged from the
 * node, and the message selected in it. New mail arrives from the live feed and is highlighted for
 * a few seconds. What can be done to a message (mark read or unread, archive with Undo, delete) is
 * composables/useMessageActions.ts, said over the list by a notice (composables/useNotice.ts); a
 * change made elsewhere is read back by composables/useMailChanges.ts. The other folders have their own stores, which this one tells whose mail is shown:
 * Sent (mail-sent.ts) and "Sent to other nodes" (mail-outbound.ts), re-read when shown, by the
 * view's timer, and when mail arrives (a bounce arrives as mail). Sends in flight: mail-outbox.ts.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { MailMessage } from '../api/mail.ts';
import type { NodeWakeItem } from '../api/owner.ts';
import { useFresh } from '../composables/useFresh.ts';
import { usePagedList } from '../composables/usePagedList.ts';
import { errorMessage } from '../lib/format.ts';
import { useMailChanges, INBOX_FOLDERS } from '../composables/useMailChanges.ts';
import { useMessageActions } from '../composables/useMessageActions.ts';
import { useNotice } from '../composables/useNotice.ts';
import { mergeMessages, type MailFolder } from '../lib/mail.ts';
import { useLiveStore } from './live.ts';
import { useOutboundStore } from './mail-outbound.ts';
import { useSentStore } from './mail-sent.ts';
import { useSessionStore } from './session.ts';

/** lib/mail.ts says what each is; Sent has its own store (mail-sent.ts). */
export type Folder = MailFolder;

const PAGE = 100;
/** A long inbox is read again in pages this size (the node's most). */
const RELOAD_PAGE = 200;
/** How long the "Archived. Undo" notice stays. */
const NOTICE_MS = 8000;
/** How long new mail stays highlighted. */
const FRESH_MS = 6000;

export const useMailStore = defineStore('mail', () => {
  const session = useSessionStore();
  const live = useLiveStore();
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
  /** Said over the list after an archive (with a way back), a delete, or a draft kept (with Discard). */
  const { notice, say, dismiss: dismissNotice } = useNotice(NOTICE_MS);

  const selected = computed(() => messages.value.find((m) => m.message_id === selectedId.value) ?? null);

  function api() {
    if (agentId.value === null) throw new Error('No identity is selected.');
    return session.asIdentity(agentId.value).mail;
  }

  const { ours, changedElsewhere } = useMailChanges({ agentId, folder, messages, loaded, reload: load, ticket: () => list.ticket(), api }, PAGE);
  const { ackError, actionError, markRead, markUnread, archive, unarchive, remove } = useMessageActions({
    agentId,
    folder,
    messages,
    selectedId,
    select,
    ours,
    say,
    dismissNotice,
    api,
  });

  /** Shows `id`'s mail (loads it when another identity's was shown). */
  async function show(id: string | null): Promise<void> {
    if (id === agentId.value && loaded.value) return;
    agentId.value = id;
    list.reset();
    selectedId.value = null;
    clearFresh();
    actionError.value = null;
    dismissNotice();
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
    dismissNotice();
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
