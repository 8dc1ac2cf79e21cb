/**
 * `address_reachability: contacts-only`: such an identity accepts mail and chat only from its
 * own project or from a sender its contacts list names, by address, by the address's domain, or
 * by did. One rule for mail, chat and MCP.
 */
import type { Db } from '../../../context.ts';
import { forbidden } from '../../../errors.ts';
import type { Party } from './participants.ts';
import { hasContactAmong } from './store/recipients.ts';

/** What a contact entry can name a sender by (a sender on another node has no local identity). */
export type SenderKeys = Pick<Party, 'didKey' | 'stableId' | 'address'>;

/** Contact entries that would admit `sender`. */
function contactKeys(sender: SenderKeys): string[] {
  const keys = [sender.didKey];
  if (sender.stableId) keys.push(sender.stableId);
  if (sender.address) keys.push(sender.address, sender.address.slice(0, sender.address.indexOf('/')));
  return keys;
}

export function isContact(db: Db, ownerAgentId: string, sender: SenderKeys): boolean {
  return hasContactAmong(db, ownerAgentId, contactKeys(sender));
}

export function assertReachable(db: Db, sender: Party, recipient: Party & { to: string }): void {
  if (recipient.agent.address_reachability !== 'contacts-only') return;
  if (recipient.agent.project_id === sender.agent.project_id) return;
  if (isContact(db, recipient.agent.agent_id, sender)) return;
  throw forbidden('SVC_ERR_RECIPIENT_CONTACTS_ONLY', `Recipient ${recipient.to} only accepts messages from contacts`);
}
