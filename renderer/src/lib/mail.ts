/**
 * Mail helpers for the views and the mail store: list merging, the signature badge, priority
 * words, reply drafts. Pure; tested in __tests__/mail.test.ts.
 */
import type { Identity, MailMessage, Priority } from '../api/client.ts';
import { keyFingerprint } from './format.ts';
import type { BadgeLabel } from './labels.ts';
import type { Recipient } from './recipients.ts';

/**
 * New messages merged into a list, newest first: known ids are replaced (an update such as
 * read_at), unknown ones added. The node orders by arrival; `created_at` (second precision) is
 * the closest the client has, and ties keep the incoming order.
 */
export function mergeMessages(list: readonly MailMessage[], incoming: readonly MailMessage[]): MailMessage[] {
  const byId = new Map(list.map((m) => [m.message_id, m]));
  for (const message of incoming) byId.set(message.message_id, message);
  return [...byId.values()].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
}

/** Older pages go at the end, without duplicates. */
export function appendPage(list: readonly MailMessage[], page: readonly MailMessage[]): MailMessage[] {
  const known = new Set(list.map((m) => m.message_id));
  return [...list, ...page.filter((m) => !known.has(m.message_id))];
}

/**
 * The signature badge: what the node found when it checked the signature over the signed bytes
 * with the sender's did:key (the renderer does no cryptography itself). Without a verdict from the
 * node it says only that the message carries a signature by that key.
 */
export function signatureBadge(message: Pick<MailMessage, 'signature' | 'from_did' | 'signature_status'>): BadgeLabel & { fingerprint: string | null } {
  if (!message.signature || !message.from_did) {
    return { text: 'Unsigned', tone: 'warn', hint: 'This message carries no signature.', fingerprint: null };
  }
  const fingerprint = keyFingerprint(message.from_did);
  switch (message.signature_status) {
    case 'verified':
      return { text: `Verified · ${fingerprint}`, tone: 'ok', hint: `The node checked this signature: it was made with ${message.from_did}.`, fingerprint };
    case 'failed':
      return { text: 'Signature does not match', tone: 'danger', hint: `This signature does not verify with ${message.from_did}: the message may have been altered.`, fingerprint };
    case 'unverified':
      return { text: `Unverified · ${fingerprint}`, tone: 'warn', hint: `The node could not check this signature against ${message.from_did}.`, fingerprint };
    default:
      return { text: `Signed by ${fingerprint}`, tone: 'neutral', hint: `Signed with ${message.from_did}; the node did not say whether it checked it.`, fingerprint };
  }
}

/**
 * When the sender's address belongs to an identity on this node that now has a different key,
 * say so (a rotation, or someone else holding the address now). Null when nothing is off.
 */
export function keyChangeNote(message: Pick<MailMessage, 'from_address' | 'from_did'>, identities: readonly Identity[]): string | null {
  if (!message.from_address) return null;
  const current = identities.find((identity) => identity.address === message.from_address && identity.status === 'active');
  if (current === undefined || current.did_key === message.from_did) return null;
  return `${message.from_address} now resolves to a different key (${keyFingerprint(current.did_key)}). This message was signed with ${keyFingerprint(message.from_did)}.`;
}

export function priorityBadge(priority: Priority): BadgeLabel | null {
  switch (priority) {
    case 'urgent':
      return { text: 'Urgent', tone: 'danger', hint: 'The sender marked this urgent.' };
    case 'high':
      return { text: 'High', tone: 'warn', hint: 'The sender marked this high priority.' };
    case 'low':
      return { text: 'Low', tone: 'neutral', hint: 'The sender marked this low priority.' };
    default:
      return null;
  }
}

/** How to write back to a message's sender: its address, else its stable did, else its key. */
export function replyRecipient(message: Pick<MailMessage, 'from_address' | 'from_stable_id' | 'from_did' | 'from_alias'>): Recipient {
  if (message.from_address) return { value: message.from_address, kind: 'address', label: message.from_alias };
  return { value: message.from_stable_id ?? message.from_did, kind: 'did', label: message.from_alias };
}

/** "Re: subject", without stacking "Re: Re:". */
export function replySubject(subject: string): string {
  const trimmed = subject.trim();
  if (trimmed === '') return 'Re: your message';
  return /^re:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`;
}

/** The quoted original under a reply. */
export function replyBody(message: Pick<MailMessage, 'body' | 'from_alias' | 'created_at'>, when: string): string {
  const quoted = message.body
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  return `\n\nOn ${when}, ${message.from_alias} wrote:\n${quoted}`;
}

/** One line of the body for the list: whitespace collapsed, cut at `max` characters. */
export function preview(body: string, max = 140): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The sender as the list shows it. */
export function senderName(message: Pick<MailMessage, 'from_alias' | 'from_address'>): string {
  return message.from_alias || message.from_address || 'Unknown sender';
}
