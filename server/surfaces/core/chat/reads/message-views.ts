/**
 * A stored message as a reader sees it, with what is worked out at read time beside it: its
 * signature, judged afresh (and remembered by content), what may be believed of its sender's
 * address, whether the reader's contacts name the sender, and the announcements for its key; and
 * an encrypted message as this reader gets it (messaging/end-to-end.ts, asRead): what the node
 * opened for a reader whose keys it holds, the envelope for one that holds its own.
 */
import type { ChatMessage, ChatMessageFrame } from '../../../../../contract/core/chat.ts';
import { announcementsFor } from '../../messaging/announcements.ts';
import { asRead, type EncryptionAsRead } from '../../messaging/end-to-end.ts';
import { isContact } from '../../messaging/reachability.ts';
import { senderNamespaceTrust } from '../../messaging/sender-trust.ts';
import type { ChatDeps } from '../deps.ts';
import type { ChatViewer } from '../domain/participants.ts';
import { toChatMessage, type ChatMessageWithProject } from '../store/messages.ts';

/** What a message read needs of chat's parts. */
export type ViewDeps = Pick<ChatDeps, 'ctx' | 'namespaces' | 'endToEnd'>;

/** A message with its row id (the cursor streams advance by), as the session stream sends it. */
export interface StreamMessage {
  id: number;
  view: Omit<ChatMessageFrame, 'type'>;
}

/** `row` as `viewer` reads it (the store joined what the node opened for it). */
export function messageView({ ctx, namespaces, endToEnd }: ViewDeps, viewer: ChatViewer, row: ChatMessageWithProject): ChatMessage {
  const mine = row.from_agent_id === viewer.agentId;
  const encryption = chatAsRead(row, viewer);
  return toChatMessage(row, viewer, {
    ...encryption,
    ...endToEnd.signatureAsRead(row, encryption),
    from_namespace_trust: senderNamespaceTrust(namespaces, { ...row, remote: row.from_remote_address !== null }),
    is_contact: !mine && isContact(ctx.db, viewer.agentId, { didKey: row.from_did, stableId: row.from_stable_id, address: row.from_address }),
    ...announcementsFor(ctx.db, row),
  });
}

/**
 * How a message reads for `viewer` (messaging/end-to-end.ts, asRead), and a message to another
 * node sealed as it leaves: its envelopes are made per delivery, so this node holds only its
 * sender's copy, which its sender (the one reader here) reads as the node opened it.
 */
export function chatAsRead(
  row: Pick<ChatMessageWithProject, 'content_mode' | 'encrypted_envelope' | 'body'>,
  viewer: ChatViewer,
): Omit<EncryptionAsRead, 'subject'> {
  if (row.content_mode === 'encrypted_v2' && row.encrypted_envelope === null) {
    return { end_to_end: true, content_mode: 'server_readable_hosted', message_version: 2, body: row.body };
  }
  const { subject: _subject, ...read } = asRead({ ...row, subject: '' }, viewer);
  return read;
}

/** `waiting(row)`: its sender has the session's stream open (upstream's `sender_waiting` on stream frames). */
export function streamMessages(
  deps: ViewDeps,
  viewer: ChatViewer,
  rows: readonly ChatMessageWithProject[],
  waiting: (row: ChatMessageWithProject) => boolean,
): StreamMessage[] {
  return rows.map((row) => ({ id: row.id, view: { ...messageView(deps, viewer, row), sender_waiting: waiting(row) } }));
}
