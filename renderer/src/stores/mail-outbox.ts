/**
 * The outbox: sends in flight, for every identity (a send keeps going when another identity is
 * shown). Optimistic: a send shows at once as "Sending…", then goes (mail for another node says
 * it is queued) and leaves after a few seconds, or stays with the node's reason and a retry. A
 * send refreshes the Sent list, and "Sent to other nodes" when it was queued there.
 *
 * What has not gone is kept in the window's storage per identity (lib/drafts.ts MailDrafts) until
 * it is sent or discarded, so a reload, a sign-in again or a node that was down loses no mail: a
 * send the window closed on before the node answered comes back as not confirmed, and its retry
 * is the same send (its message id), never a second mail.
 *
 * Two windows of one node (two tabs) share that storage and keep their unsent mail in it side by
 * side: a window writes the items it holds and leaves the others' as they are, item by item, so
 * neither overwrites what the other has not sent. A window hears the other's writes (the
 * `storage` event): a mail the other sent or discarded leaves this outbox too, and is never written
 * back; one it edited shows as edited. Each window lists the mail it sends, and what it found kept
 * when it first showed the identity.
 */
import { defineStore } from 'pinia';
import type { ErrorCode } from '../../../contract/errors.ts';
import { ApiError } from '../api/errors.ts';
import { computed, ref, watch } from 'vue';
import { MailDrafts, sameMailDraft, type MailDraft, type UnsentChange, type UnsentMail } from '../lib/drafts.ts';
import { queuedRecipients } from '../lib/federation.ts';
import { errorMessage } from '../lib/format.ts';
import { recipientFields } from '../lib/recipients.ts';
import { useMailStore } from './mail.ts';
import { useOutboundStore } from './mail-outbound.ts';
import { useSentStore } from './mail-sent.ts';
import { useSessionStore } from './session.ts';

export type { MailDraft };

export interface OutboxItem {
  id: string;
  /** The identity it is sent as. */
  agentId: string;
  draft: MailDraft;
  state: 'sending' | 'sent' | 'failed';
  /** The node's reason, when it failed. */
  error: string | null;
  /** The node's code for that reason (null when it was not reached, or after a reload). */
  code: ErrorCode | null;
  /**
   * Sent as plaintext (`legacy_plaintext_v1`), by the person's explicit choice after the node
   * refused it for a recipient without an encryption key: never set by the app on its own.
   */
  plaintext: boolean;
  /** Recipients (as named in the draft) whose mail went to another node's queue, once sent. */
  queued: string[];
  /**
   * The send's own message id (one recipient only): a retry after a lost answer is then the same
   * send, answered again, never a second mail.
   */
  messageId: string | null;
  /** False when the window's storage refused it: it would not outlive this window. */
  kept: boolean;
}

/** How long a sent item stays in the outbox. */
const SENT_MS = 5000;
/** A send queued for another node stays a little longer: it says something worth reading. */
const QUEUED_MS = 9000;
/** Said of a send kept while it was on its way, when the window closed before the node answered. */
export const NOT_CONFIRMED = 'Not confirmed: the window closed before the node answered. Retry sends it again (once).';

export const useOutboxStore = defineStore('mail-outbox', () => {
  const session = useSessionStore();
  const mail = useMailStore();
  const sent = useSentStore();
  const outbound = useOutboundStore();
  const storage = new MailDrafts(window.localStorage, window.location.origin);

  const items = ref<OutboxItem[]>([]);
  /** The sends of the identity whose mail is shown. */
  const mine = computed(() => items.value.filter((item) => item.agentId === mail.agentId));
  /** Identities whose kept unsent mail was read back. */
  const restored = new Set<string>();
  /** Mail this window sent or discarded: the storage's copy of it is no other window's to keep. */
  const gone = new Set<string>();

  /** The identity's kept unsent mail, back in the outbox the first time its mail is shown. */
  function restore(agentId: string | null): void {
    if (agentId === null || restored.has(agentId)) return;
    restored.add(agentId);
    const back = storage.unsent(agentId).map((u): OutboxItem => ({
      id: u.id,
      agentId,
      draft: u.draft,
      state: 'failed',
      error: u.error ?? NOT_CONFIRMED,
      code: null,
      plaintext: false,
      queued: [],
      messageId: u.messageId,
      kept: true,
    }));
    const known = new Set(items.value.map((item) => item.id));
    items.value = [...back.filter((item) => !known.has(item.id)), ...items.value];
  }
  watch(() => mail.agentId, restore, { immediate: true });

  /**
   * Writes what of the identity's mail has not gone to the window's storage, beside what other
   * windows keep there (the items this window neither holds nor let go of).
   */
  function keep(agentId: string): void {
    const held = items.value.filter((item) => item.agentId === agentId);
    const heldIds = new Set(held.map((item) => item.id));
    const others = storage.unsent(agentId).filter((u) => !heldIds.has(u.id) && !gone.has(u.id));
    const unsent = held
      .filter((item) => item.state !== 'sent')
      .map((item): UnsentMail => ({
        id: item.id,
        draft: item.draft,
        error: item.state === 'failed' ? item.error : null,
        messageId: item.messageId,
        triedAt: new Date().toISOString(),
      }));
    const kept = storage.putUnsent(agentId, [...others, ...unsent]);
    const ids = new Set(unsent.map((u) => u.id));
    if (items.value.some((item) => ids.has(item.id) && item.kept !== kept)) {
      items.value = items.value.map((item) => (ids.has(item.id) ? { ...item, kept } : item));
    }
  }

  /** Sends as the identity shown. Returns at once; the outbox item tells how it went. */
  function send(draft: MailDraft): OutboxItem {
    const owner = mail.agentId;
    if (owner === null) throw new Error('No identity is selected.');
    const messageId = draft.to.length === 1 ? crypto.randomUUID() : null;
    const item: OutboxItem = {
      id: crypto.randomUUID(),
      agentId: owner,
      draft,
      state: 'sending',
      error: null,
      code: null,
      plaintext: false,
      queued: [],
      messageId,
      kept: true,
    };
    items.value = [...items.value, item];
    void deliver(item.id);
    return item;
  }

  function patch(id: string, changes: Partial<OutboxItem>): void {
    items.value = items.value.map((item) => (item.id === id ? { ...item, ...changes } : item));
    const owner = items.value.find((item) => item.id === id)?.agentId;
    if (owner !== undefined) keep(owner);
  }

  async function deliver(id: string): Promise<void> {
    const item = items.value.find((entry) => entry.id === id);
    if (item === undefined) return;
    patch(id, { state: 'sending', error: null, code: null, queued: [] });
    try {
      const result = await session.asIdentity(item.agentId).mail.send({
        ...recipientFields(item.draft.to),
        subject: item.draft.subject,
        body: item.draft.body,
        priority: item.draft.priority,
        ...(item.draft.thread_id === undefined ? {} : { thread_id: item.draft.thread_id }),
        ...(item.messageId === null ? {} : { message_id: item.messageId }),
        ...(item.plaintext ? { content_mode: 'legacy_plaintext_v1' as const } : {}),
      });
      const queued = queuedRecipients(result);
      patch(id, { state: 'sent', queued });
      setTimeout(() => discard(id), queued.length > 0 ? QUEUED_MS : SENT_MS);
      const shown = item.agentId === mail.agentId;
      if (shown) void sent.refresh();
      if (queued.length > 0 && shown && (mail.folder === 'outbound' || outbound.loaded)) void outbound.load();
    } catch (error) {
      patch(id, { state: 'failed', error: errorMessage(error), code: error instanceof ApiError ? error.code : null });
    }
  }

  function retry(id: string): void {
    void deliver(id);
  }

  /**
   * The person's explicit choice, after the node refused a send because its recipient publishes
   * no encryption key: the same send (its message id) again, as plaintext. Nothing else sends
   * plaintext; a later edit and send encrypts again.
   */
  function sendAsPlaintext(id: string): void {
    if (!items.value.some((item) => item.id === id && item.state === 'failed')) return;
    items.value = items.value.map((item) => (item.id === id ? { ...item, plaintext: true } : item));
    void deliver(id);
  }

  /** An unsent mail edited and closed without sending: kept as edited. */
  function update(id: string, draft: MailDraft): void {
    if (items.value.some((item) => item.id === id && item.state === 'failed')) patch(id, { draft });
  }

  function discard(id: string): void {
    const owner = items.value.find((item) => item.id === id)?.agentId;
    gone.add(id);
    items.value = items.value.filter((item) => item.id !== id);
    if (owner !== undefined) keep(owner);
  }

  /**
   * Another window wrote an identity's unsent mail: what it sent or discarded leaves this outbox
   * (unless this window is sending it right now), and what it edited shows as edited.
   */
  function heard(change: UnsentChange): void {
    const after = new Map(change.after.map((u) => [u.id, u]));
    const removed = new Set(change.before.filter((u) => !after.has(u.id)).map((u) => u.id));
    const touched = items.value.some((item) => item.agentId === change.agentId && item.state === 'failed' && (removed.has(item.id) || after.has(item.id)));
    if (!touched) return;
    items.value = items.value.flatMap((item) => {
      if (item.agentId !== change.agentId || item.state !== 'failed') return [item];
      if (removed.has(item.id)) return [];
      const theirs = after.get(item.id);
      return theirs === undefined || sameMailDraft(theirs.draft, item.draft) ? [item] : [{ ...item, draft: theirs.draft }];
    });
  }
  window.addEventListener('storage', (event) => {
    if (event.storageArea !== window.localStorage) return;
    const change = storage.unsentChange(event);
    if (change !== null) heard(change);
  });

  return { items, mine, send, retry, sendAsPlaintext, update, discard };
});
