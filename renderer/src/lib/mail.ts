/**
 * Mail helpers for the views and the mail store: list merging, the signature badge, priority
 * words, reply drafts; folders: list updates after archive and delete, what a delete
 * says it does, Sent's delivery words, which links of a rendered body may open. Pure; tested in
 * mail.test.ts.
 */
import type { MailMessage, OutboundMail, Priority, SentMail, SignatureStatus } from '../api/mail.ts';
import type { Identity } from '../api/owner.ts';
import { addressDomain, outboundBadge, outboundDetail } from './federation.ts';
import { formatCount, keyFingerprint, plural } from './format.ts';
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

/**
 * The signature badge: what the node found when it checked the signature over the signed bytes
 * with the sender's did:key (the renderer does no cryptography itself). Without a verdict from the
 * node it says only that the message carries a signature by that key.
 */
export function signatureBadge(
  message: Pick<MailMessage, 'signature' | 'from_did'> & { signature_status?: SignatureStatus | undefined; end_to_end?: boolean | undefined },
): BadgeLabel & { fingerprint: string | null } {
  // An end-to-end encrypted mail is signed in its envelope, which the node checked; the answer may
  // carry no signature beside it (one the reader could not check on its own).
  if ((!message.signature && message.end_to_end !== true) || !message.from_did) {
    return { text: 'Unsigned', tone: 'warn', hint: 'This message carries no signature.', fingerprint: null };
  }
  const fingerprint = keyFingerprint(message.from_did);
  switch (message.signature_status) {
    case 'verified':
      return { text: `Verified · ${fingerprint}`, tone: 'ok', hint: `The node checked this signature: it was made with ${message.from_did}.`, fingerprint };
    case 'failed':
      return {
        text: 'Signature does not match',
        tone: 'danger',
        hint: `This signature does not verify with ${message.from_did}: the message may have been altered.`,
        fingerprint,
      };
    case 'unverified':
      return { text: `Unverified · ${fingerprint}`, tone: 'warn', hint: `The node could not check this signature against ${message.from_did}.`, fingerprint };
    default:
      return {
        text: `Signed by ${fingerprint}`,
        tone: 'neutral',
        hint: `Signed with ${message.from_did}; the node did not say whether it checked it.`,
        fingerprint,
      };
  }
}

/**
 * The sender's address, or null: `from_address` names every sender as upstream does, and only a
 * name with a "/" is an address (an alias, or `<project>~<alias>`, is not).
 */
export function senderAddress(message: Pick<MailMessage, 'from_address'>): string | null {
  return message.from_address.includes('/') ? message.from_address : null;
}

/** The thread a message belongs to: the thread it names, else the one it starts (its own id). */
export function threadOf(message: Pick<MailMessage, 'thread_id' | 'message_id'>): string {
  return message.thread_id ?? message.message_id;
}

/**
 * When the sender's address belongs to an identity on this node that now has a different key,
 * say so (a rotation, or someone else holding the address now). Null when nothing is off.
 */
export function keyChangeNote(message: Pick<MailMessage, 'from_address' | 'from_did'>, identities: readonly Identity[]): string | null {
  const address = senderAddress(message);
  if (address === null) return null;
  const current = identities.find((identity) => identity.address === address && identity.status === 'active');
  if (current === undefined || current.did_key === message.from_did) return null;
  return `${address} now resolves to a different key (${keyFingerprint(current.did_key)}). This message was signed with ${keyFingerprint(message.from_did)}.`;
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
  const address = senderAddress(message);
  if (address !== null) return { value: address, kind: 'address', label: message.from_alias };
  return { value: message.from_stable_id ?? message.from_did, kind: 'did', label: message.from_alias };
}

/** "Re: subject", without stacking "Re: Re:". */
export function replySubject(subject: string): string {
  const trimmed = subject.trim();
  if (trimmed === '') return 'Re: your message';
  return /^re:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`;
}

/** The quoted original under a reply, after a blank line to write the answer on (the cursor starts there). */
export function replyBody(message: Pick<MailMessage, 'body' | 'from_alias' | 'created_at'>, when: string): string {
  const quoted = message.body
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  return `\n\nOn ${when}, ${message.from_alias} wrote:\n${quoted}`;
}

/** Markdown's marks a one-line preview leaves out: fences, line-start markers, emphasis, link targets. */
const MARKDOWN_MARKS: readonly [RegExp, string][] = [
  [/^\s*(```|~~~).*$/gm, ''],
  [/^\s{0,3}(?:#{1,6}|>+|[-*+]|\d{1,9}[.)])\s+/gm, ''],
  [/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1'],
  [/(\*\*|__|~~|`)/g, ''],
  [/\*(\S(?:[^*\n]*\S)?)\*/g, '$1'],
];

const QUOTED = /^\s*>/;
/** The line a reply puts above the quote ("On Tuesday, 3 March 2026 at 10:00, alice wrote:"). */
const ATTRIBUTION = /\bwrote:\s*$/;

/**
 * A mail's own words: the quoted lines ("> …") and the line introducing a quote ("On …, alice
 * wrote:") left out, so a reply is known by what it says, not by what it answers. The whole
 * body when nothing else is left (a forward that only quotes).
 */
export function ownWords(body: string): string {
  const lines = body.split('\n');
  const introducesQuote = (index: number): boolean => {
    let next = index + 1;
    while (next < lines.length && lines[next]?.trim() === '') next++;
    return QUOTED.test(lines[next] ?? '');
  };
  const kept = lines.filter((line, index) => !QUOTED.test(line) && !(ATTRIBUTION.test(line) && introducesQuote(index)));
  const own = kept.join('\n');
  return own.trim() === '' ? body : own;
}

/**
 * One line for the list: the mail's own words (ownWords), Markdown's marks left out, whitespace
 * collapsed, cut at `max` characters.
 */
export function preview(body: string, max = 140): string {
  const text = MARKDOWN_MARKS.reduce((out, [mark, keep]) => out.replace(mark, keep), ownWords(body));
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The sender as the list shows it. */
export function senderName(message: Pick<MailMessage, 'from_alias' | 'from_address'>): string {
  return message.from_alias || message.from_address || 'Unknown sender';
}

/** One mail of a thread as the reading pane lists it: received or sent, by whom, when. */
export interface ThreadEntry {
  message_id: string;
  /** Who wrote it: the sender's alias, or "You". */
  from: string;
  /** To whom, for mail I sent. */
  to: string | null;
  subject: string;
  body: string;
  created_at: string;
  mine: boolean;
  /** Whether it went end-to-end encrypted. */
  end_to_end: boolean;
}

/**
 * A thread's mail, received and sent, oldest first and each once (a send to several recipients
 * is one entry), without `openId` (the message the pane shows in full).
 */
export function threadEntries(received: readonly MailMessage[], sent: readonly SentMail[], openId: string): ThreadEntry[] {
  const entries: ThreadEntry[] = received.map((m) => ({
    message_id: m.message_id,
    from: m.from_alias,
    to: null,
    subject: m.subject,
    body: m.body,
    created_at: m.created_at,
    mine: false,
    end_to_end: m.end_to_end,
  }));
  const sends = new Map<string, ThreadEntry>();
  for (const s of sent) {
    // One send to several recipients is several items with the same content and second.
    const key = `${s.created_at}\n${s.subject}\n${s.body}`;
    const seen = sends.get(key);
    if (seen) seen.to = `${seen.to}, ${s.to}`;
    else
      sends.set(key, {
        message_id: s.message_id,
        from: 'You',
        to: s.to,
        subject: s.subject,
        body: s.body,
        created_at: s.created_at,
        mine: true,
        end_to_end: s.end_to_end,
      });
  }
  return [...entries, ...sends.values()]
    .filter((entry) => entry.message_id !== openId)
    .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}

// ------------------------------------------------------------------ folders

/**
 * Mail's folders: the inbox, its unread part, everything sent, what was archived, and mail and
 * chat to other nodes with its delivery state (`outbound`).
 */
export type MailFolder = 'inbox' | 'unread' | 'sent' | 'archive' | 'outbound';

export const MAIL_FOLDERS: readonly { id: MailFolder; label: string; short: string; icon: 'inbox' | 'unread' | 'send' | 'package' | 'globe' }[] = [
  { id: 'inbox', label: 'Inbox', short: 'Inbox', icon: 'inbox' },
  { id: 'unread', label: 'Unread', short: 'Unread', icon: 'unread' },
  { id: 'sent', label: 'Sent', short: 'Sent', icon: 'send' },
  { id: 'archive', label: 'Archive', short: 'Archive', icon: 'package' },
  { id: 'outbound', label: 'Sent to other nodes', short: 'Other nodes', icon: 'globe' },
];

export function folderTitle(folder: MailFolder): string {
  return MAIL_FOLDERS.find((f) => f.id === folder)?.label ?? 'Inbox';
}

/**
 * The number beside a folder's title, with its meaning in words and grouped ("66,666 unread"):
 * the identity's unread mail (the node's count, the same number the folder list shows) for the
 * inbox and Unread; what is still on its way for "Sent to other nodes". Sent and the Archive say
 * no number: the list is read in pages and the node gives no total, so any count would be a page's.
 */
export function folderCountText(folder: MailFolder, counts: { unread: number; queued: number }, locale?: string): string {
  if (folder === 'inbox' || folder === 'unread') return counts.unread > 0 ? `${formatCount(counts.unread, locale)} unread` : '';
  if (folder === 'outbound') return counts.queued > 0 ? `${formatCount(counts.queued, locale)} on the way` : '';
  return '';
}

/** A folder's count in the folder list: the number, and what it counts for a tooltip and screen readers. */
export function folderBadge(folder: MailFolder, counts: { unread: number; queued: number }, locale?: string): { text: string; label: string } | null {
  if (folder === 'inbox' && counts.unread > 0)
    return { text: formatCount(counts.unread, locale), label: plural(counts.unread, 'unread message', 'unread messages', locale) };
  if (folder === 'outbound' && counts.queued > 0)
    return { text: formatCount(counts.queued, locale), label: `${plural(counts.queued, 'message', 'messages', locale)} still on the way` };
  return null;
}

/** The list without `id`. */
export function withoutMessage<T extends { message_id: string }>(list: readonly T[], id: string): T[] {
  return list.filter((m) => m.message_id !== id);
}

/** The list with `patch` applied to `id`. */
export function patchMessage<T extends { message_id: string }>(list: readonly T[], id: string, patch: Partial<T>): T[] {
  return list.map((m) => (m.message_id === id ? { ...m, ...patch } : m));
}

/**
 * Which message to show once `id` leaves the list (archived, deleted): the one after it, or the
 * one before when it was the last, as mail apps do; null when the list is then empty.
 */
export function nextAfterRemoval(list: readonly { message_id: string }[], id: string): string | null {
  const index = list.findIndex((m) => m.message_id === id);
  if (index < 0) return null;
  return list[index + 1]?.message_id ?? list[index - 1]?.message_id ?? null;
}

/**
 * A message changed elsewhere (archived, unarchived, read, unread, deleted by an agent or another
 * window), in the list of the folder shown, as the node now has it (null: deleted): out of a
 * folder it left, updated where it is, or back in its place in one it came (back) to. Unread
 * keeps a message read elsewhere in view, as it does one read here, until it is read again.
 */
export function placeChanged(list: readonly MailMessage[], id: string, message: MailMessage | null, folder: 'inbox' | 'unread' | 'archive'): MailMessage[] {
  const shown = list.some((m) => m.message_id === id);
  const archived = Boolean(message?.archived_at);
  const belongs = message !== null && (folder === 'archive' ? archived : !archived && (folder === 'inbox' || message.read_at === null || shown));
  if (!belongs) return withoutMessage(list, id);
  return shown ? list.map((m) => (m.message_id === id ? message : m)) : mergeMessages(list, [message]);
}

/** What deleting a message does, in words, for the confirmation. */
export function deleteConsequence(message: Pick<MailMessage, 'subject' | 'origin' | 'from_alias'>): string {
  const what = message.subject.trim() === '' ? 'This message' : `“${message.subject.trim()}”`;
  const keeps = message.origin === 'bounce' ? '' : ` ${message.from_alias || 'The sender'} keeps their copy.`;
  return `${what} is removed from your mail for good, from the inbox and the archive; this cannot be undone.${keeps}`;
}

/**
 * The delivery badge of a sent item: local mail is delivered as it is sent; mail to another node
 * has the outbox's state. It says what the sender knows, the delivery, never where the mail is
 * now: the recipient may have archived or deleted it since.
 */
export function sentBadge(item: SentMail): BadgeLabel {
  if (item.destination === 'local') return { text: 'Delivered', tone: 'ok', hint: `Delivered to ${item.to} on this node when it was sent.` };
  return outboundBadge({ ...item, attempts: item.attempts ?? 0, to_domain: addressDomain(item.to) ?? item.to });
}

/** The line under a sent row: to whom it went, and for another node what happened. */
export function sentDetail(item: SentMail): string {
  if (item.destination === 'local') return 'On this node';
  return outboundDetail({ ...item, attempts: item.attempts ?? 0 });
}

/** What a row of Sent or "Sent to other nodes" says: to whom, the delivery badge and the line beside it. */
export function deliveryRow(mail: SentMail | OutboundMail): { to: string; toTitle: string; badge: BadgeLabel; note: string } {
  if (!('destination' in mail)) return { to: `To ${mail.to_address}`, toTitle: mail.to_address, badge: outboundBadge(mail), note: outboundDetail(mail) };
  // Mail to this node was delivered as it was sent: the row has room for what it said.
  const note = mail.destination === 'local' ? preview(mail.body) : sentDetail(mail);
  return { to: `To ${mail.to_alias ?? mail.to}`, toTitle: mail.to_address ?? mail.to, badge: sentBadge(mail), note };
}

/**
 * Whether a link in a rendered body may open (in the system browser or mail client): http(s) and
 * mailto only. The node's sanitiser already keeps no others but same-page `#` links, which in
 * the app would move its own router.
 */
export function opensExternally(href: string | null): boolean {
  if (href === null) return false;
  try {
    return ['http:', 'https:', 'mailto:'].includes(new URL(href).protocol);
  } catch {
    return false;
  }
}
