/**
 * A conversation as the chat view keeps it: the node's messages plus my sends in flight, merged
 * as the stream and the send answers arrive in any order, who has read what, and who has left.
 * Pure; tested in chat.test.ts.
 */
import { MAX_CHAT_MESSAGE_BYTES, utf8Length } from '../../../contract/core-rules.ts';
import type { ChatMember, ChatMessage, ChatSession } from '../api/chat.ts';

export type Delivery = 'sent' | 'sending' | 'failed';

export interface ConversationEntry {
  /** The message_id once the node has it; a local id while sending. */
  key: string;
  message: ChatMessage;
  delivery: Delivery;
  /** Why it was not sent, in the node's words. */
  error: string | null;
  /** Whether sending it again could work (not for a refusal such as "too large"). */
  retryable: boolean;
  /** A send of mine going as plaintext by the person's choice (the node refused it for want of a key): a retry goes as plaintext too. */
  plaintext?: boolean;
  /**
   * A send of mine the node took whose copy has not come back yet: `message` is still what was
   * sent, so how the node sent it (sealed or not) is not known until the copy replaces it.
   */
  awaitingCopy?: boolean;
}

export function sent(message: ChatMessage): ConversationEntry {
  return { key: message.message_id, message, delivery: 'sent', error: null, retryable: true };
}

/** What leaving or rejoining says in words for readers that show messages as they are (agents, older apps). */
export const LEFT_BODY = 'Left the chat.';
export const REJOINED_BODY = 'Rejoined the chat.';

/** A message of mine before the node has answered. */
export function pendingEntry(
  localKey: string,
  me: { agent_id: string; alias: string; address: string | null; did_key: string },
  sessionId: string,
  body: string,
  flags: { leaving?: boolean; rejoining?: boolean; plaintext?: boolean },
  now: Date,
): ConversationEntry {
  const at = now.toISOString();
  return {
    key: localKey,
    delivery: 'sending',
    error: null,
    retryable: true,
    ...(flags.plaintext === true ? { plaintext: true } : {}),
    message: {
      message_id: localKey,
      session_id: sessionId,
      from_agent_id: me.agent_id,
      from_alias: me.alias,
      from_address: me.address,
      from_did: me.did_key,
      from_stable_id: null,
      from_agent: me.alias,
      to: '',
      to_address: '',
      to_did: '',
      to_stable_id: null,
      body,
      timestamp: at,
      created_at: at,
      sender_leaving: flags.leaving === true,
      sender_rejoining: flags.rejoining === true,
      hang_on: false,
      extends_wait_seconds: 0,
      reply_to: null,
      wait_seconds: null,
      // Not signed yet: the node signs it when it takes it (the badge says "Unsigned" meanwhile).
      signature: '',
      signed_payload: '',
      signing_key_id: null,
      is_contact: false,
      rotation_announcement: null,
      replacement_announcement: null,
      signature_status: 'unverified',
      from_namespace_trust: null,
      // How it is sent is the node's to say (sealed when every other participant publishes a key):
      // lib/chat-encryption.ts shows no mark until the node's copy says (`awaitingCopy`).
      end_to_end: false,
      content_mode: 'legacy_plaintext_v1',
      message_version: 1,
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
 * already delivered it (then the local copy is dropped). Until its copy arrives it says nothing
 * of how it was encrypted (`awaitingCopy`).
 */
export function confirmSend(entries: readonly ConversationEntry[], localKey: string, messageId: string): ConversationEntry[] {
  if (entries.some((e) => e.key === messageId)) return entries.filter((e) => e.key !== localKey);
  return entries.map((e) =>
    e.key === localKey ? { ...e, key: messageId, delivery: 'sent', error: null, awaitingCopy: true, message: { ...e.message, message_id: messageId } } : e,
  );
}

export function failSend(entries: readonly ConversationEntry[], localKey: string, error: string, retryable = true): ConversationEntry[] {
  return entries.map((e) => (e.key === localKey ? { ...e, delivery: 'failed', error, retryable } : e));
}

/**
 * Whether a failed call could succeed if made again unchanged: the node unreachable (0), busy or
 * broken (5xx), timed out or rate limited. Any other refusal (too large, not allowed, unknown)
 * would only fail again, so it is not offered a Retry.
 */
export function isRetryable(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500;
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

// ------------------------------------------------------------------ membership

/** A participant as the conversation shows it: whether it is me, and since when it is gone (null: here). */
export interface MemberState {
  alias: string;
  mine: boolean;
  leftAt: string | null;
}

const memberKey = (member: Pick<ChatMember, 'address' | 'alias'>): string => member.address ?? member.alias;
const senderKey = (message: Pick<ChatMessage, 'from_address' | 'from_alias'>): string => message.from_address ?? message.from_alias;

/**
 * Who is in the chat now. The node's history says it as of the read (`left_at`); the entries are
 * the conversation's newest messages without a gap, so a participant's latest message among them
 * is its latest of all and says whether it is gone (leaving) or back (anything else).
 */
export function memberStates(members: readonly ChatMember[], entries: readonly ConversationEntry[], myAgentId: string | null | undefined): MemberState[] {
  return members.map((member) => {
    const mine = myAgentId != null && member.agent_id === myAgentId;
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const { message, delivery } = entries[index] as ConversationEntry;
      if (delivery !== 'sent') continue;
      if (mine ? isMine(message, myAgentId) : !isMine(message, myAgentId) && senderKey(message) === memberKey(member)) {
        return { alias: member.alias, mine, leftAt: message.sender_leaving ? message.created_at : null };
      }
    }
    return { alias: member.alias, mine, leftAt: member.left_at };
  });
}

/** The other participants of a conversation (alias and address): from its session row, else from its history. */
export function conversationOthers(
  session: Pick<ChatSession, 'participants' | 'participant_addresses'> | null,
  members: readonly ChatMember[],
  myAgentId: string | null | undefined,
): { alias: string; address: string }[] {
  if (session !== null) return session.participants.map((alias, index) => ({ alias, address: session.participant_addresses[index] ?? alias }));
  return members.filter((m) => !(myAgentId != null && m.agent_id === myAgentId)).map((m) => ({ alias: m.alias, address: m.address ?? m.alias }));
}

/** The others' read positions as the node last said them (reader alias → message id). */
export function receiptsFrom(members: readonly ChatMember[], myAgentId: string | null | undefined): Record<string, string> {
  const receipts: Record<string, string> = {};
  for (const member of members) {
    if (member.last_read_message_id !== null && !(myAgentId != null && member.agent_id === myAgentId)) receipts[member.alias] = member.last_read_message_id;
  }
  return receipts;
}

/** "bob", "bob and carol", "bob, carol and dave". */
function names(list: readonly string[]): string {
  if (list.length <= 1) return list.join('');
  return `${list.slice(0, -1).join(', ')} and ${list.at(-1) as string}`;
}

export type ConversationStatus = { kind: 'you-left' | 'they-left' | 'present'; text: string } | null;

/**
 * What the conversation's header says: that I left (then nothing else matters), who of the others
 * left, or that someone is in the chat right now (the node's `sender_waiting`).
 */
export function conversationStatus(states: readonly MemberState[], someoneHere: boolean): ConversationStatus {
  if (states.some((s) => s.mine && s.leftAt !== null)) return { kind: 'you-left', text: 'You left this chat' };
  const others = states.filter((s) => !s.mine);
  const gone = others.filter((s) => s.leftAt !== null).map((s) => s.alias);
  if (gone.length > 0 && gone.length === others.length)
    return { kind: 'they-left', text: others.length === 1 ? 'left the chat' : `${names(gone)} left the chat` };
  if (someoneHere) return { kind: 'present', text: 'in the chat' };
  if (gone.length > 0) return { kind: 'they-left', text: `${names(gone)} left the chat` };
  return null;
}

// ------------------------------------------------------------------ the timeline

export type TimelineRow =
  | { kind: 'message'; key: string; entry: ConversationEntry; first: boolean; last: boolean }
  | { kind: 'system'; key: string; text: string; note: string | null; mine: boolean };

/**
 * The conversation as rows: a goodbye or a return is a line across the conversation ("You left
 * the chat"), not a bubble; its words show only when they say more than the standard ones. A
 * message from someone whose previous message was a goodbye (an app that rejoins by writing
 * again, as upstream's do) gets the "rejoined" line before it. Consecutive messages from one
 * sender form a group (`first`, `last`), broken by any line.
 */
export function timeline(entries: readonly ConversationEntry[], myAgentId: string | null | undefined): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const leftBy = new Set<string>();
  for (const entry of entries) {
    const { message } = entry;
    const mine = isMine(message, myAgentId);
    const who = mine ? 'You' : message.from_alias;
    const sender = mine ? '' : senderKey(message); // '' is no one's address or alias
    if (entry.delivery === 'sent' && message.sender_leaving) {
      leftBy.add(sender);
      rows.push({ kind: 'system', key: entry.key, text: `${who} left the chat`, note: message.body.trim() === LEFT_BODY ? null : message.body, mine });
      continue;
    }
    if (entry.delivery === 'sent' && (message.sender_rejoining === true || leftBy.has(sender))) {
      leftBy.delete(sender);
      const explicit = message.sender_rejoining === true;
      rows.push({
        kind: 'system',
        key: explicit ? entry.key : `${entry.key}:rejoined`,
        text: `${who} rejoined the chat`,
        note: explicit && message.body.trim() !== REJOINED_BODY ? message.body : null,
        mine,
      });
      if (explicit) continue;
    }
    const previous = rows.at(-1);
    const first =
      previous?.kind !== 'message' || previous.entry.message.from_alias !== message.from_alias || isMine(previous.entry.message, myAgentId) !== mine;
    if (!first) previous.last = false;
    rows.push({ kind: 'message', key: entry.key, entry, first, last: true });
  }
  return rows;
}

// ------------------------------------------------------------------ size

/** The node's limit on a chat message, and how it counts bytes: the contract's (contract/core-rules.ts). */
export { MAX_CHAT_MESSAGE_BYTES, utf8Length };
/** From this share of the limit on, the composer shows how much is left. */
const NEAR_SHARE = 0.8;

/** "64 KiB", "48.5 KiB". */
export function formatKiB(bytes: number): string {
  const kib = bytes / 1024;
  return `${Number.isInteger(kib) ? kib : kib.toFixed(1)} KiB`;
}

export interface MessageSize {
  bytes: number;
  state: 'ok' | 'near' | 'over';
  /** What to show beside the composer (null while far from the limit). */
  text: string | null;
}

/** How a draft stands against the limit, said before anything is sent. */
export function messageSize(text: string, limit = MAX_CHAT_MESSAGE_BYTES): MessageSize {
  const bytes = utf8Length(text);
  if (bytes > limit) return { bytes, state: 'over', text: `Too long to send: ${formatKiB(bytes)}, and a chat message holds at most ${formatKiB(limit)}.` };
  if (bytes >= limit * NEAR_SHARE) return { bytes, state: 'near', text: `${formatKiB(bytes)} of ${formatKiB(limit)}` };
  return { bytes, state: 'ok', text: null };
}
