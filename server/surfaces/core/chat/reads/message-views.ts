/**
 * A stored message as a reader sees it, with what is worked out at read time beside it: its
 * signature, judged afresh (and remembered by content), what may be believed of its sender's
 * address, whether the reader's contacts name the sender, and the announcements for its key.
 */
import type { ChatMessage, ChatMessageFrame } from '../../../../../contract/core/chat.ts';
import { announcementsFor } from '../../messaging/announcements.ts';
import { isContact } from '../../messaging/reachability.ts';
import { senderNamespaceTrust } from '../../messaging/sender-trust.ts';
import { signatureStatus } from '../../messaging/signing.ts';
import type { ChatDeps } from '../deps.ts';
import type { ChatViewer } from '../domain/participants.ts';
import { toChatMessage, type ChatMessageWithProject } from '../store/messages.ts';

/** What a message read needs of chat's parts. */
export type ViewDeps = Pick<ChatDeps, 'ctx' | 'namespaces'>;

/** A message with its row id (the cursor streams advance by), as the session stream sends it. */
export interface StreamMessage {
  id: number;
  view: Omit<ChatMessageFrame, 'type'>;
}

export function messageView({ ctx, namespaces }: ViewDeps, viewer: ChatViewer, row: ChatMessageWithProject): ChatMessage {
  const mine = row.from_agent_id === viewer.agentId;
  return toChatMessage(row, viewer, {
    signature_status: signatureStatus(row),
    from_namespace_trust: senderNamespaceTrust(namespaces, { ...row, remote: row.from_remote_address !== null }),
    is_contact: !mine && isContact(ctx.db, viewer.agentId, { didKey: row.from_did, stableId: row.from_stable_id, address: row.from_address }),
    ...announcementsFor(ctx.db, row),
  });
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
