/**
 * Whether a chat message may reach an identity of this node: the contacts-only rule of
 * messaging/reachability.ts, with chat's one allowance, that being in a session is permission to
 * answer those who took part in it. A participant that started the session or has spoken in it has
 * engaged with the sender; a contacts-only participant that has not is still protected by its own
 * rule. A recipient on another node applies its rule there.
 */
import type { Db } from '../../../context.ts';
import { forbidden } from '../../../errors.ts';
import type { AgentRow } from '../identities/store/agents.ts';
import type { Party } from '../messaging/participants.ts';
import { assertReachable } from '../messaging/reachability.ts';
import type { ChatTarget } from './domain/participants.ts';

/** A message from `sender` to `target`, which has (`engaged`) or has not yet taken part in their session. */
export function assertChatReachable(db: Db, sender: Party, target: ChatTarget, engaged: boolean): void {
  if (target.agent === null || engaged) return;
  assertReachable(db, sender, target);
}

/**
 * A message from another node to `recipient` (addressed as `to`): a contacts-only identity takes
 * it from a contact, or from someone it has answered in their session.
 */
export function assertRemoteChatAccepted(recipient: AgentRow, to: string, sender: { contact: boolean; answered: boolean }): void {
  if (recipient.address_reachability === 'contacts-only' && !sender.contact && !sender.answered) {
    throw forbidden('SVC_ERR_RECIPIENT_CONTACTS_ONLY', `Refused: ${to} only accepts messages from contacts`);
  }
}
