/**
 * What chat says about end-to-end encryption, in mail's words (lib/end-to-end.ts): the lock on a
 * message and on a session row, the conversation's mark in its header, and which refusal may go
 * again as plaintext, by the person's explicit choice. A message only has a mark once the node
 * has said how it went: a send still on its way, or answered but not yet read back, has none,
 * since the node decides whether it is sealed. Pure; tested in chat-encryption.test.ts.
 */
import type { ErrorCode } from '../../../contract/errors.ts';
import type { ConversationEntry } from './chat.ts';
import { encryptionBadge, threadEncryptionBadge, type EncryptionBadge } from './end-to-end.ts';
import { plural } from './format.ts';

/**
 * Whether a message is end-to-end encrypted as far as the node has said: its copy's `end_to_end`;
 * false for a send of mine the node took as plaintext by my choice; null while it is not known.
 */
export function entryEndToEnd(entry: ConversationEntry): boolean | null {
  if (entry.delivery !== 'sent') return null;
  if (entry.awaitingCopy === true) return entry.plaintext === true ? false : null;
  return entry.message.end_to_end;
}

/** A message's mark: the lock, or "Not end-to-end encrypted"; none before the node has said. */
export function entryEncryption(entry: ConversationEntry): EncryptionBadge | null {
  const endToEnd = entryEndToEnd(entry);
  return endToEnd === null ? null : encryptionBadge({ end_to_end: endToEnd });
}

/**
 * The conversation header's mark over the messages loaded: the lock when every one is encrypted,
 * "Not end-to-end encrypted" when the newest is plaintext, and "Not all end-to-end encrypted"
 * when only older ones are. None while no message says (an empty or loading conversation).
 */
export function conversationEncryption(entries: readonly ConversationEntry[]): EncryptionBadge | null {
  const known = entries.map(entryEndToEnd).filter((endToEnd): endToEnd is boolean => endToEnd !== null);
  if (known.length === 0) return null;
  const messages = known.map((endToEnd) => ({ end_to_end: endToEnd }));
  const badge = threadEncryptionBadge(messages);
  if (badge.locked) return { ...badge, hint: 'Every message of this conversation shown here is end-to-end encrypted.' };
  const plain = known.filter((endToEnd) => !endToEnd).length;
  const of = `${plain} of the ${plural(known.length, 'message')} shown`;
  if (known.at(-1) === false) {
    return {
      ...badge,
      text: 'Not end-to-end encrypted',
      hint:
        plain === known.length
          ? 'No message of this conversation shown here is end-to-end encrypted.'
          : `The newest message is not end-to-end encrypted (${of}).`,
    };
  }
  return { ...badge, hint: `Not end-to-end encrypted: ${of}.` };
}

/** A session row's mark for its last message; none when the row's source did not say. */
export function lastEncryption(last: { end_to_end: boolean | null } | null): EncryptionBadge | null {
  return last === null || last.end_to_end === null ? null : encryptionBadge({ end_to_end: last.end_to_end });
}

/**
 * A refused chat send (or first message) that may go again as plaintext: someone in it publishes
 * no encryption key. Unlike a mail, a group chat is offered it too: the node takes plaintext to a
 * chat with at least one participant without a key, and refuses it only when all of them have one.
 */
export function chatOffersPlaintext(code: ErrorCode | null): boolean {
  return code === 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING';
}
