/**
 * The outbox: sends in flight, for every identity (a send keeps going when another identity is
 * shown). Optimistic: a send shows at once as "Sending…", then goes (mail for another node says
 * it is queued) and leaves after a few seconds, or stays with the node's reason and a retry. A
 * send refreshes the Sent list, and "Sent to other nodes" when it was queued there.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { Priority } from '../api/mail.ts';
import { queuedRecipients } from '../lib/federation.ts';
import { errorMessage } from '../lib/format.ts';
import { recipientFields } from '../lib/recipients.ts';
import type { Recipient } from '../lib/recipients.ts';
import { useMailStore } from './mail.ts';
import { useOutboundStore } from './mail-outbound.ts';
import { useSentStore } from './mail-sent.ts';
import { useSessionStore } from './session.ts';

export interface MailDraft {
  to: Recipient[];
  subject: string;
  body: string;
  priority: Priority;
  /** A reply's thread (the thread's first message id). */
  thread_id?: string;
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
  /**
   * The send's own message id (one recipient only): a retry after a lost answer is then the same
   * send, answered again, never a second mail.
   */
  messageId: string | null;
}

/** How long a sent item stays in the outbox. */
const SENT_MS = 5000;
/** A send queued for another node stays a little longer: it says something worth reading. */
const QUEUED_MS = 9000;

let outboxSeq = 0;

export const useOutboxStore = defineStore('mail-outbox', () => {
  const session = useSessionStore();
  const mail = useMailStore();
  const sent = useSentStore();
  const outbound = useOutboundStore();

  const items = ref<OutboxItem[]>([]);
  /** The sends of the identity whose mail is shown. */
  const mine = computed(() => items.value.filter((item) => item.agentId === mail.agentId));

  /** Sends as the identity shown. Returns at once; the outbox item tells how it went. */
  function send(draft: MailDraft): OutboxItem {
    const owner = mail.agentId;
    if (owner === null) throw new Error('No identity is selected.');
    const messageId = draft.to.length === 1 ? crypto.randomUUID() : null;
    const item: OutboxItem = { id: `out-${++outboxSeq}`, agentId: owner, draft, state: 'sending', error: null, queued: [], messageId };
    items.value = [...items.value, item];
    void deliver(item.id);
    return item;
  }

  function patch(id: string, changes: Partial<OutboxItem>): void {
    items.value = items.value.map((item) => (item.id === id ? { ...item, ...changes } : item));
  }

  async function deliver(id: string): Promise<void> {
    const item = items.value.find((entry) => entry.id === id);
    if (item === undefined) return;
    patch(id, { state: 'sending', error: null, queued: [] });
    try {
      const result = await session.asIdentity(item.agentId).mail.send({
        ...recipientFields(item.draft.to),
        subject: item.draft.subject,
        body: item.draft.body,
        priority: item.draft.priority,
        ...(item.draft.thread_id === undefined ? {} : { thread_id: item.draft.thread_id }),
        ...(item.messageId === null ? {} : { message_id: item.messageId }),
      });
      const queued = queuedRecipients(result);
      patch(id, { state: 'sent', queued });
      setTimeout(() => discard(id), queued.length > 0 ? QUEUED_MS : SENT_MS);
      const shown = item.agentId === mail.agentId;
      if (shown) void sent.refresh();
      if (queued.length > 0 && shown && (mail.folder === 'outbound' || outbound.loaded)) void outbound.load();
    } catch (error) {
      patch(id, { state: 'failed', error: errorMessage(error) });
    }
  }

  function retry(id: string): void {
    void deliver(id);
  }

  function discard(id: string): void {
    items.value = items.value.filter((item) => item.id !== id);
  }

  return { items, mine, send, retry, discard };
});
