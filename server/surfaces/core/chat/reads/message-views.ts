/**
 * A stored message as a reader sees it, with the node's verdicts beside it: its signature, judged
 * afresh (and remembered by content), and what may be believed of its sender's address.
 */
import type { ChatMessage } from '../../../../../contract/core/chat.ts';
import { senderNamespaceTrust } from '../../messaging/sender-trust.ts';
import { signatureStatus } from '../../messaging/signing.ts';
import type { NamespaceService } from '../../namespaces/service.ts';
import type { ChatViewer } from '../domain/participants.ts';
import { toChatMessage, type ChatMessageWithProject } from '../store/messages.ts';

/** A message with its row id: the cursor streams advance by. */
export interface StreamMessage {
  id: number;
  view: ChatMessage;
}

export function messageView(namespaces: NamespaceService, viewer: ChatViewer, row: ChatMessageWithProject): ChatMessage {
  return toChatMessage(row, viewer, {
    signature_status: signatureStatus(row),
    from_namespace_trust: senderNamespaceTrust(namespaces, { ...row, remote: row.from_remote_address !== null }),
  });
}

export function streamMessages(namespaces: NamespaceService, viewer: ChatViewer, rows: readonly ChatMessageWithProject[]): StreamMessage[] {
  return rows.map((row) => ({ id: row.id, view: messageView(namespaces, viewer, row) }));
}
