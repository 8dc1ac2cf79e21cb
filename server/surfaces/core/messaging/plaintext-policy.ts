/**
 * The recipient's side of "no downgrade": an identity decides by its `accepts_plaintext` setting
 * whether it takes plaintext from senders that do not encrypt end to end. The one check mail (and
 * later chat and federation) calls once it knows a message to a recipient goes as plaintext, before
 * anything is stored.
 */
import { conflict } from '../../../errors.ts';
import type { Party } from './participants.ts';

/** Throws 409 SVC_ERR_E2EE_PLAINTEXT_REFUSED when `recipient` has turned plaintext off. */
export function assertAcceptsPlaintext(recipient: Party): void {
  if (recipient.agent.accepts_plaintext === 1) return;
  throw conflict(
    'SVC_ERR_E2EE_PLAINTEXT_REFUSED',
    `${recipient.address ?? recipient.alias} accepts only end-to-end encrypted messages, and this one is plaintext, so nothing was sent`,
  );
}
