/**
 * Sending into the open chat conversation (stores/chat.ts holds it). Sends are optimistic: shown
 * at once as "Sending…", then confirmed, or marked failed with the node's reason (and a retry
 * only when trying again could help); a draft over the node's size limit is never sent, and
 * nothing goes out while I am out of the chat. Leaving and rejoining are explicit acts, shown once
 * the node has them.
 */
import type { ComputedRef, Ref } from 'vue';
import type { ChatMessage } from '../api/chat.ts';
import { ApiError } from '../api/errors.ts';
import type { IdentityClient } from '../api/identity.ts';
import type { Identity } from '../api/owner.ts';
import { confirmSend, failSend, isRetryable, LEFT_BODY, messageSize, pendingEntry, REJOINED_BODY, type ConversationEntry } from '../lib/chat.ts';
import { errorMessage } from '../lib/format.ts';

let localSeq = 0;

/** The open conversation, as the chat store holds it. */
export interface OpenConversation {
  openId: Readonly<Ref<string | null>>;
  me: ComputedRef<Identity | null>;
  youLeft: ComputedRef<boolean>;
  entries: Ref<ConversationEntry[]>;
  /** Changes whenever another conversation is opened: an answer for the one before is dropped. */
  generation: () => number;
  api: () => IdentityClient;
  /** A message now in the conversation: its row in the list moves up and says so. */
  noteLast: (sessionId: string, message: ChatMessage) => void;
  /** Reads the delivery states of what went to other nodes again. */
  deliveryChanged: () => void;
}

export function useChatSending(open: OpenConversation) {
  const { openId, me, youLeft, entries, generation, api } = open;

  /**
   * Sends into the open conversation (optimistic). Nothing goes out while I am out of the chat
   * (rejoining is its own act) or when the node would refuse the size anyway.
   */
  async function send(body: string): Promise<void> {
    const sessionId = openId.value;
    const identity = me.value;
    if (sessionId === null || identity === null || youLeft.value || messageSize(body).state === 'over') return;
    const key = `local-${++localSeq}`;
    entries.value = [...entries.value, pendingEntry(key, identity, sessionId, body, {}, new Date())];
    await deliver(key);
  }

  /**
   * Leaving or rejoining: not optimistic, since the caller (a confirmation, a button) shows the
   * outcome; the message joins the conversation once the node has it. Throws with its reason.
   */
  async function changeMembership(flags: { leaving?: boolean; rejoining?: boolean }, body: string): Promise<void> {
    const sessionId = openId.value;
    const identity = me.value;
    if (sessionId === null || identity === null) return;
    const mine = generation();
    const answer = await api().chat.send(sessionId, body, flags);
    if (mine !== generation()) return;
    const key = `local-${++localSeq}`;
    const entry = pendingEntry(key, identity, sessionId, body, flags, new Date());
    entries.value = confirmSend([...entries.value, entry], key, answer.message_id);
    open.noteLast(sessionId, { ...entry.message, message_id: answer.message_id });
  }

  /** Leaves the open chat, with a parting note or the standard words. */
  function leave(note = ''): Promise<void> {
    return changeMembership({ leaving: true }, note.trim() || LEFT_BODY);
  }

  function rejoin(): Promise<void> {
    return changeMembership({ rejoining: true }, REJOINED_BODY);
  }

  async function deliver(key: string): Promise<void> {
    const entry = entries.value.find((e) => e.key === key);
    const sessionId = openId.value;
    if (entry === undefined || sessionId === null) return;
    const mine = generation();
    entries.value = entries.value.map((e) => (e.key === key ? { ...e, delivery: 'sending', error: null } : e));
    try {
      const answer = await api().chat.send(sessionId, entry.message.body, { leaving: entry.message.sender_leaving });
      if (mine !== generation()) return;
      entries.value = confirmSend(entries.value, key, answer.message_id);
      open.noteLast(sessionId, { ...entry.message, message_id: answer.message_id });
      open.deliveryChanged();
    } catch (error) {
      const retryable = !(error instanceof ApiError) || isRetryable(error.status);
      if (mine === generation()) entries.value = failSend(entries.value, key, errorMessage(error), retryable);
    }
  }

  function retry(key: string): void {
    void deliver(key);
  }

  function discard(key: string): void {
    entries.value = entries.value.filter((e) => e.key !== key || e.delivery === 'sent');
  }

  /** Takes a failed send back out of the conversation; its text, to put in the composer. */
  function takeBack(key: string): string | null {
    const entry = entries.value.find((e) => e.key === key && e.delivery === 'failed');
    if (entry === undefined) return null;
    discard(key);
    return entry.message.body;
  }

  return { send, leave, rejoin, retry, discard, takeBack };
}
