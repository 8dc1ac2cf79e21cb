/**
 * Sending into the open chat conversation (stores/chat.ts holds it). Sends are optimistic: shown
 * at once as "Sending…", then confirmed, or marked failed with the node's reason (and a retry
 * only when trying again could help); a draft over the node's size limit is never sent, and
 * nothing goes out while I am out of the chat. Leaving and rejoining are explicit acts, shown once
 * the node has them. A send refused because someone in the chat publishes no encryption key
 * leaves the conversation and goes back to the composer, with the node's reason, as an offer to
 * send it as plaintext (`plaintextOffer`): only the person's explicit choice sends it so.
 */
import { ref, type ComputedRef, type Ref } from 'vue';
import type { ChatMessage } from '../api/chat.ts';
import { ApiError } from '../api/errors.ts';
import type { IdentityClient } from '../api/identity.ts';
import type { Identity } from '../api/owner.ts';
import { confirmSend, failSend, isRetryable, LEFT_BODY, messageSize, pendingEntry, REJOINED_BODY, type ConversationEntry } from '../lib/chat.ts';
import { chatOffersPlaintext } from '../lib/chat-encryption.ts';
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
  /** A message now in the conversation: its row in the list moves up and says so (`endToEnd`: how it went, null while not known). */
  noteLast: (sessionId: string, message: ChatMessage, endToEnd?: boolean | null) => void;
  /** Reads the delivery states of what went to other nodes again. */
  deliveryChanged: () => void;
}

/**
 * A send the node refused because someone in the chat publishes no encryption key: its text, back
 * in the composer, and the node's reason. Sending it as plaintext is the person's choice alone.
 */
export interface PlaintextOffer {
  sessionId: string;
  text: string;
  reason: string;
}

export function useChatSending(open: OpenConversation) {
  const { openId, me, youLeft, entries, generation, api } = open;
  const plaintextOffer = ref<PlaintextOffer | null>(null);

  /**
   * Sends into the open conversation (optimistic). Nothing goes out while I am out of the chat
   * (rejoining is its own act) or when the node would refuse the size anyway. `plaintext` names
   * plaintext (`legacy_plaintext_v1`): only after the person confirmed it for this message.
   */
  async function send(body: string, options: { plaintext?: boolean } = {}): Promise<void> {
    const sessionId = openId.value;
    const identity = me.value;
    if (sessionId === null || identity === null || youLeft.value || messageSize(body).state === 'over') return;
    plaintextOffer.value = null;
    const key = `local-${++localSeq}`;
    entries.value = [...entries.value, pendingEntry(key, identity, sessionId, body, { plaintext: options.plaintext === true }, new Date())];
    await deliver(key);
  }

  /** The offer to send as plaintext is withdrawn: another conversation opened, or the text was sent. */
  function dropPlaintextOffer(): void {
    plaintextOffer.value = null;
  }

  /**
   * Leaving or rejoining: not optimistic, since the caller (a confirmation, a button) shows the
   * outcome; the message joins the conversation once the node has it. Throws with its reason.
   */
  async function changeMembership(flags: { leaving?: boolean; rejoining?: boolean }, body: string, options: { plaintext?: boolean }): Promise<void> {
    const sessionId = openId.value;
    const identity = me.value;
    if (sessionId === null || identity === null) return;
    const mine = generation();
    const answer = await api().chat.send(sessionId, body, {
      ...flags,
      ...(options.plaintext === true ? { content_mode: 'legacy_plaintext_v1' as const } : {}),
    });
    if (mine !== generation()) return;
    const key = `local-${++localSeq}`;
    const entry = pendingEntry(key, identity, sessionId, body, flags, new Date());
    const copy = entries.value.find((e) => e.key === answer.message_id);
    entries.value = confirmSend([...entries.value, entry], key, answer.message_id);
    open.noteLast(sessionId, { ...entry.message, message_id: answer.message_id }, copy === undefined ? null : copy.message.end_to_end);
  }

  /**
   * Leaves the open chat, with a parting note or the standard words. `plaintext`: the person chose
   * it after the node refused the goodbye for want of someone's key (it is a message like any other).
   */
  function leave(note = '', options: { plaintext?: boolean } = {}): Promise<void> {
    return changeMembership({ leaving: true }, note.trim() || LEFT_BODY, options);
  }

  /** Comes back into the open chat; `plaintext` as for leaving. */
  function rejoin(options: { plaintext?: boolean } = {}): Promise<void> {
    return changeMembership({ rejoining: true }, REJOINED_BODY, options);
  }

  async function deliver(key: string): Promise<void> {
    const entry = entries.value.find((e) => e.key === key);
    const sessionId = openId.value;
    if (entry === undefined || sessionId === null) return;
    const mine = generation();
    entries.value = entries.value.map((e) => (e.key === key ? { ...e, delivery: 'sending', error: null } : e));
    try {
      const answer = await api().chat.send(sessionId, entry.message.body, {
        leaving: entry.message.sender_leaving,
        ...(entry.plaintext === true ? { content_mode: 'legacy_plaintext_v1' as const } : {}),
      });
      if (mine !== generation()) return;
      // The stream may have brought the node's copy first: then it says how the message went.
      const copy = entries.value.find((e) => e.key === answer.message_id);
      entries.value = confirmSend(entries.value, key, answer.message_id);
      const endToEnd = copy !== undefined ? copy.message.end_to_end : entry.plaintext === true ? false : null;
      open.noteLast(sessionId, { ...entry.message, message_id: answer.message_id }, endToEnd);
      open.deliveryChanged();
    } catch (error) {
      if (mine !== generation()) return;
      if (error instanceof ApiError && chatOffersPlaintext(error.code) && entry.plaintext !== true) {
        // Nothing was sent: the text goes back to the composer with the offer, never out on its own.
        entries.value = entries.value.filter((e) => e.key !== key);
        plaintextOffer.value = { sessionId, text: entry.message.body, reason: errorMessage(error) };
        return;
      }
      const retryable = !(error instanceof ApiError) || isRetryable(error.status);
      entries.value = failSend(entries.value, key, errorMessage(error), retryable);
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

  return { send, leave, rejoin, retry, discard, takeBack, plaintextOffer, dropPlaintextOffer };
}
