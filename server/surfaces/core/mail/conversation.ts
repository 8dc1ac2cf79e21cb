/**
 * Upstream's `conversation_id` for a mail, as its clients read it: an encrypted mail's is the one
 * its envelope is bound to (a client opening the envelope refuses an item whose outer id differs),
 * any other mail's is its thread, and a mail that named no thread starts its own conversation,
 * under its own id, which is what the node seals such a mail to.
 */
import type { StoredEnvelope } from '../../../../contract/core/end-to-end.ts';

export function conversationId(mail: { message_id: string; thread_id: string | null }, envelope?: Pick<StoredEnvelope, 'conversation_id'>): string {
  return envelope?.conversation_id ?? mail.thread_id ?? mail.message_id;
}
