/**
 * What the app says about end-to-end encryption: the lock on a message (and on a thread, when all
 * of it is encrypted), the mark on plaintext, and when a send the node refused may go again as
 * plaintext, by the person's explicit choice. Pure and tested in end-to-end.test.ts.
 */
import type { ErrorCode } from '../../../contract/errors.ts';
import { plural } from './format.ts';
import type { BadgeLabel } from './labels.ts';

/** A badge about encryption: `locked` picks the closed lock or the open one, so the meaning never rests on colour. */
export interface EncryptionBadge extends BadgeLabel {
  locked: boolean;
}

/** Upstream's words for a plaintext send, shown before the person chooses it. */
export const PLAINTEXT_WARNING = 'Sending as legacy plaintext. Subject/body may be stored and visible to the service.';

/** Whether one message crossed, and is stored, end-to-end encrypted. */
export function encryptionBadge(message: { end_to_end: boolean }): EncryptionBadge {
  if (message.end_to_end) {
    return {
      text: 'End-to-end encrypted',
      tone: 'ok',
      hint: 'Sealed for its sender and recipients only: the nodes it crossed stored it encrypted.',
      locked: true,
    };
  }
  return {
    text: 'Not end-to-end encrypted',
    tone: 'warn',
    hint: 'Sent as plaintext: the nodes it crossed could read its subject and body.',
    locked: false,
  };
}

/** A thread: locked only when every message of it is encrypted; otherwise it says how much is not. */
export function threadEncryptionBadge(messages: readonly { end_to_end: boolean }[]): EncryptionBadge {
  const plain = messages.filter((message) => !message.end_to_end).length;
  if (plain === 0) {
    return { text: 'End-to-end encrypted', tone: 'ok', hint: 'Every message of this thread is end-to-end encrypted.', locked: true };
  }
  if (plain === messages.length) {
    return { text: 'Not end-to-end encrypted', tone: 'warn', hint: 'No message of this thread is end-to-end encrypted.', locked: false };
  }
  return {
    text: 'Not all end-to-end encrypted',
    tone: 'warn',
    hint: `Not end-to-end encrypted: ${plain} of this thread’s ${plural(messages.length, 'message')}.`,
    locked: false,
  };
}

/**
 * A refused send that may go again as plaintext: the node refused it because its one recipient
 * publishes no encryption key. With several recipients it is not offered: plaintext to one that
 * can encrypt is refused, so that recipient is mailed on its own.
 */
export function offersPlaintext(refusal: { code: ErrorCode | null; recipients: number }): boolean {
  return refusal.code === 'SVC_ERR_E2EE_RECIPIENT_KEY_MISSING' && refusal.recipients === 1;
}
