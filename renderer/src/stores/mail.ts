/**
 * Mail for the current identity: the inbox (or its unread part), paged from the node; the open
 * message; the outbox of sends in flight (optimistic: a send shows at once as "Sending…", then
 * goes, or stays with the node's reason and a retry; mail for another node says it is queued).
 * New mail arrives from the live feed and is highlighted for a few seconds. The "Sent to other
 * nodes" folder lists the identity's mail to other nodes with its delivery state; it is re-read
 * when shown, by the view's timer, and when mail arrives (a bounce arrives as mail).
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { MailMessage, NodeWakeItem, OutboundMail, Priority } from '../api/client.ts';
import { errorMessage } from '../lib/format.ts';
import { queuedRecipients } from '../lib/federation.ts';
import { appendPage, mergeMessages } from '../lib/mail.ts';
import { recipientFields } from '../lib/recipients.ts';
import type { Recipient } from '../lib/recipients.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';
import { useUnreadStore } from './unread.ts';

/** `outbound`: this identity's mail to other nodes, with its delivery state. */
export type Folder = 'inbox' | 'unread' | 'outbound';

export interface MailDraft {
  to: Recipient[];
  subject: string;
  body: string;
  priority: Priority;
}

export interface OutboxItem {
  id: string;
  /** The identity it is sent as. */
  agentId: string;
  draft: MailDraft;
  state: 'sending' | 'sent' | 'failed';
  /** The node's reason, when it failed. */
  error: string | null;
  /** Recipients (as named in the draft) whose mail went to another node's queue, once sent. */
  queued: string[];
}

const PAGE = 100;
/** How long new mail stays highlighted, and a sent item stays in the outbox. */
const FRESH_MS = 6000;
const SENT_MS = 5000;
/** A send queued for another node stays a little longer: it says something worth reading. */
const QUEUED_MS = 9000;

let outboxSeq = 0;

export const useMailStore = defineStore('mail', () => {
  const session = useSessionStore();
  const live = useLiveStore();
  const unread = useUnreadStore();

  /** Whose mail is loaded. */
  const agentId = ref<string | null>(null);
  const folder = ref<Folder>('inbox');
  const messages = ref<MailMessage[]>([]);
  const hasMore = ref(false);
  const nextBefore = ref<string | null>(null);
  const loaded = ref(false);
  const loading = ref(false);
  const loadingMore = ref(false);
  const loadError = ref<string | null>(null);
  const selectedId = ref<string | null>(null);
  /** Ids of messages that just arrived live (highlighted). */
  const fresh = ref<Record<string, true>>({});
  /** Why the last "mark read" failed, for the reading pane. */
  const ackError = ref<string | null>(null);
  const outbox = ref<OutboxItem[]>([]);
  /** The identity's mail to other nodes, newest first. */
  const outbound = ref<OutboundMail[]>([]);
  const outboundLoaded = ref(false);
  const outboundError = ref<string | null>(null);
  const selectedOutboundId = ref<string | null>(null);

  const selected = computed(() => messages.value.find((m) => m.message_id === selectedId.value) ?? null);
  const myOutbox = computed(() => outbox.value.filter((item) => item.agentId === agentId.value));
  const selectedOutbound = computed(() => outbound.value.find((m) => m.message_id === selectedOutboundId.value) ?? null);
  const queuedCount = computed(() => outbound.value.filter((m) => m.status === 'queued').length);

  let generation = 0;

  function api() {
    if (agentId.value === null) throw new Error('No identity is selected.');
    return session.asIdentity(agentId.value);
  }

  /** Shows `id`'s mail (loads it when another identity's was shown). */
  async function show(id: string | null): Promise<void> {
    if (id === agentId.value && loaded.value) return;
    agentId.value = id;
    messages.value = [];
    selectedId.value = null;
    fresh.value = {};
    loaded.value = false;
    outbound.value = [];
    outboundLoaded.value = false;
    outboundError.value = null;
    selectedOutboundId.value = null;
    await Promise.all([load(), folder.value === 'outbound' ? loadOutbound() : Promise.resolve()]);
  }

  /** Re-reads the mail to other nodes (quietly: a failure keeps what is shown, with the reason). */
  async function loadOutbound(): Promise<void> {
    const owner = agentId.value;
    if (owner === null) {
      outboundLoaded.value = true;
      return;
    }
    try {
      const list = await api().outbound();
      if (owner !== agentId.value) return;
      outbound.value = list;
      outboundError.value = null;
    } catch (error) {
      if (owner === agentId.value) outboundError.value = errorMessage(error);
    } finally {
      if (owner === agentId.value) outboundLoaded.value = true;
    }
  }

  function selectOutbound(id: string | null): void {
    selectedOutboundId.value = id;
  }

  async function load(): Promise<void> {
    const mine = ++generation;
    loadError.value = null;
    if (agentId.value === null) {
      loaded.value = true;
      return;
    }
    loading.value = true;
    try {
      const page = await api().inbox({ limit: PAGE, unreadOnly: folder.value === 'unread' });
      if (mine !== generation) return;
      messages.value = page.messages;
      hasMore.value = page.has_more;
      nextBefore.value = page.next_before;
    } catch (error) {
      if (mine === generation) loadError.value = errorMessage(error);
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
      const page = await api().inbox({ limit: PAGE, unreadOnly: folder.value === 'unread', before: nextBefore.value });
      if (mine !== generation) return;
      messages.value = appendPage(messages.value, page.messages);
      hasMore.value = page.has_more;
      nextBefore.value = page.next_before;
    } catch (error) {
      if (mine === generation) loadError.value = errorMessage(error);
    } finally {
      loadingMore.value = false;
    }
  }

  async function setFolder(next: Folder): Promise<void> {
    if (folder.value === next) return;
    folder.value = next;
    if (next === 'outbound') await loadOutbound();
    else await load();
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
      const answer = await api().ack(id);
      if (owner === agentId.value) patch(answer.acknowledged_at);
    } catch (error) {
      if (owner !== agentId.value) return;
      patch(null);
      ackError.value = `Could not mark it read: ${errorMessage(error)}`;
      unread.schedule(0);
    }
  }

  /** A new mail for the identity shown: fetched by id, merged in, highlighted. */
  async function arrived(item: NodeWakeItem): Promise<void> {
    if (item.type !== 'mail_message' || item.agent_id !== agentId.value || !loaded.value) return;
    // A bounce arrives as mail: the delivery states may have changed.
    if (folder.value === 'outbound' || outboundLoaded.value) void loadOutbound();
    const mine = generation;
    try {
      const message = await api().message(item.message_id);
      if (message === null || mine !== generation) return;
      messages.value = mergeMessages(messages.value, [message]);
      fresh.value = { ...fresh.value, [message.message_id]: true };
      setTimeout(() => {
        const next = { ...fresh.value };
        delete next[message.message_id];
        fresh.value = next;
      }, FRESH_MS);
    } catch {
      // The next reconnect or reload catches up.
    }
  }

  /** After a reconnect nothing is replayed: merge the newest page in. */
  async function catchUp(): Promise<void> {
    if (agentId.value === null || !loaded.value) return;
    const mine = generation;
    try {
      const page = await api().inbox({ limit: 50, unreadOnly: folder.value === 'unread' });
      if (mine === generation) messages.value = mergeMessages(messages.value, page.messages);
    } catch {
      // Keep what is shown.
    }
  }

  /** Sends as the identity shown. Returns at once; the outbox item tells how it went. */
  function send(draft: MailDraft): OutboxItem {
    const owner = agentId.value;
    if (owner === null) throw new Error('No identity is selected.');
    const item: OutboxItem = { id: `out-${++outboxSeq}`, agentId: owner, draft, state: 'sending', error: null, queued: [] };
    outbox.value = [...outbox.value, item];
    void deliver(item.id);
    return item;
  }

  function patchOutbox(id: string, patch: Partial<OutboxItem>): void {
    outbox.value = outbox.value.map((item) => (item.id === id ? { ...item, ...patch } : item));
  }

  async function deliver(id: string): Promise<void> {
    const item = outbox.value.find((entry) => entry.id === id);
    if (item === undefined) return;
    patchOutbox(id, { state: 'sending', error: null, queued: [] });
    try {
      const result = await session.asIdentity(item.agentId).sendMail({
        ...recipientFields(item.draft.to),
        subject: item.draft.subject,
        body: item.draft.body,
        priority: item.draft.priority,
      });
      const queued = queuedRecipients(result);
      patchOutbox(id, { state: 'sent', queued });
      setTimeout(() => discard(id), queued.length > 0 ? QUEUED_MS : SENT_MS);
      if (queued.length > 0 && item.agentId === agentId.value && (folder.value === 'outbound' || outboundLoaded.value)) void loadOutbound();
    } catch (error) {
      patchOutbox(id, { state: 'failed', error: errorMessage(error) });
    }
  }

  function retry(id: string): void {
    void deliver(id);
  }

  function discard(id: string): void {
    outbox.value = outbox.value.filter((item) => item.id !== id);
  }

  /** Selects a message by id, fetching it when it is not in the list (a notification's link). */
  async function reveal(id: string): Promise<void> {
    if (folder.value === 'outbound') await setFolder('inbox');
    if (!messages.value.some((m) => m.message_id === id)) {
      try {
        const message = await api().message(id);
        if (message === null) return;
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
  live.onOpen(() => void catchUp());

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
    outbox,
    myOutbox,
    outbound,
    outboundLoaded,
    outboundError,
    selectedOutboundId,
    selectedOutbound,
    queuedCount,
    loadOutbound,
    selectOutbound,
    show,
    load,
    loadMore,
    setFolder,
    select,
    reveal,
    markRead,
    send,
    retry,
    discard,
    markContact,
  };
});
