/**
 * A conversation as the chat view keeps it: the node's messages plus my sends in flight, merged
 * as the stream and the send answers arrive in any order, and who has read what. Pure; tested in
 * __tests__/chat.test.ts.
 */
import type { ChatMessage, ChatSession } from '../api/client.ts';

export type Delivery = 'sent' | 'sending' | 'failed';

export interface ConversationEntry {
  /** The message_id once the node has it; a local id while sending. */
  key: string;
  message: ChatMessage;
  delivery: Delivery;
  /** Why it was not sent, in the node's words. */
  error: string | null;
}

/** The summary a session row shows under its participants. */
export interface LastMessage {
  body: string;
  from_alias: string;
  created_at: string;
  mine: boolean;
  /** The message said its sender was leaving. */
  leaving: boolean;
}

export function sent(message: ChatMessage): ConversationEntry {
  return { key: message.message_id, message, delivery: 'sent', error: null };
}

/** A message of mine before the node has answered. */
export function pendingEntry(
  localKey: string,
  me: { agent_id: string; alias: string; address: string | null; did_key: string },
  sessionId: string,
  body: string,
  leaving: boolean,
  now: Date,
): ConversationEntry {
  const at = now.toISOString();
  return {
    key: localKey,
    delivery: 'sending',
    error: null,
    message: {
      message_id: localKey,
      session_id: sessionId,
      from_agent_id: me.agent_id,
      from_alias: me.alias,
      from_address: me.address,
      from_did: me.did_key,
      from_stable_id: null,
      to: '',
      to_did: '',
      body,
      timestamp: at,
      created_at: at,
      sender_leaving: leaving,
      hang_on: false,
      reply_to: null,
      signature: '',
    },
  };
}

/**
 * Messages from the node (history, stream) merged in: a known message_id is replaced, a new one
 * is placed by `created_at` among the sent ones; sends in flight stay at the end.
 */
export function mergeMessages(entries: readonly ConversationEntry[], messages: readonly ChatMessage[]): ConversationEntry[] {
  const known = new Map(entries.filter((e) => e.delivery === 'sent').map((e) => [e.key, e]));
  for (const message of messages) known.set(message.message_id, sent(message));
  const ordered = [...known.values()].sort((a, b) => a.message.created_at.localeCompare(b.message.created_at));
  return [...ordered, ...entries.filter((e) => e.delivery !== 'sent' && !known.has(e.key))];
}

/**
 * The node accepted a send: the local entry becomes the real message, unless the stream has
 * already delivered it (then the local copy is dropped).
 */
export function confirmSend(entries: readonly ConversationEntry[], localKey: string, messageId: string): ConversationEntry[] {
  if (entries.some((e) => e.key === messageId)) return entries.filter((e) => e.key !== localKey);
  return entries.map((e) =>
    e.key === localKey ? { ...e, key: messageId, delivery: 'sent', error: null, message: { ...e.message, message_id: messageId } } : e,
  );
}

export function failSend(entries: readonly ConversationEntry[], localKey: string, error: string): ConversationEntry[] {
  return entries.map((e) => (e.key === localKey ? { ...e, delivery: 'failed', error } : e));
}

export function isMine(message: Pick<ChatMessage, 'from_agent_id'>, myAgentId: string | null | undefined): boolean {
  return myAgentId != null && message.from_agent_id === myAgentId;
}

/**
 * Read receipts placed on my messages: for each reader, the last message of mine at or before
 * the message they have read up to. Keyed by entry key; the readers' aliases in order.
 */
export function readMarks(
  entries: readonly ConversationEntry[],
  receipts: Readonly<Record<string, string>>,
  myAgentId: string | null | undefined,
): Map<string, string[]> {
  const marks = new Map<string, string[]>();
  for (const [reader, upTo] of Object.entries(receipts)) {
    const readIndex = entries.findIndex((e) => e.key === upTo);
    if (readIndex < 0) continue;
    for (let index = readIndex; index >= 0; index -= 1) {
      const entry = entries[index] as ConversationEntry;
      if (entry.delivery === 'sent' && isMine(entry.message, myAgentId)) {
        marks.set(entry.key, [...(marks.get(entry.key) ?? []), reader]);
        break;
      }
    }
  }
  return marks;
}

/**
 * The newest message someone else sent, when it is newer than what I already marked read:
 * the `up_to_message_id` to send. Null when there is nothing new to mark.
 */
export function toMarkRead(entries: readonly ConversationEntry[], myAgentId: string | null | undefined, markedUpTo: string | null): string | null {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index] as ConversationEntry;
    if (entry.key === markedUpTo) return null;
    if (entry.delivery === 'sent' && !isMine(entry.message, myAgentId)) return entry.key;
  }
  return null;
}

/** The other participants as a title: "bob", "bob and carol", "bob, carol and 2 others". */
export function sessionTitle(session: Pick<ChatSession, 'participants'>): string {
  const names = session.participants;
  if (names.length === 0) return 'Only you';
  if (names.length === 1) return names[0] as string;
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  const rest = names.length - 2;
  return `${names[0]}, ${names[1]} and ${rest} ${rest === 1 ? 'other' : 'others'}`;
}

/** Sessions by latest activity, newest first. */
export function sortSessions(sessions: readonly ChatSession[]): ChatSession[] {
  return [...sessions].sort((a, b) => Date.parse(b.last_activity) - Date.parse(a.last_activity));
}

/** Whether the newest message from someone else said they were leaving. */
export function othersLeft(entries: readonly ConversationEntry[], myAgentId: string | null | undefined): boolean {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index] as ConversationEntry;
    if (entry.delivery === 'sent' && !isMine(entry.message, myAgentId)) return entry.message.sender_leaving;
  }
  return false;
}

/**
 * What a session row says about the others: waiting for my answer (someone is in the chat and
 * the last word was theirs), present, or nothing.
 */
export function presence(session: Pick<ChatSession, 'sender_waiting' | 'unread_count'>, last: LastMessage | null): 'waiting' | 'present' | null {
  // Someone who said goodbye is not waiting, even with the chat still open on their screen.
  if (!session.sender_waiting || last?.leaving === true) return null;
  const theirTurn = session.unread_count > 0 || (last !== null && !last.mine);
  return theirTurn ? 'waiting' : 'present';
}
