/**
 * Upstream's names for the identity stream's wake items. The spec names them `mail_message` and
 * `chat_message`; upstream's current clients (its Go CLI's event stream client) know only
 * `actionable_mail` and `actionable_chat` and skip every other name, and they send nothing that
 * would let the node tell them apart from any other client (the same `Accept` and
 * `Cache-Control`, the same auth). So the stream sends both: each wake item as the spec's frame,
 * then as upstream's, with the same id (docs/http-api.md: "Upstream's event names"). A client listening for one name never
 * sees the other; one listening for both deduplicates by `message_id`.
 */
import type { ActionableChatFrame, ActionableMailFrame, MailWakeFrame } from '../../../../contract/core/events.ts';

/** Upstream's fields are strings, never null: an absent value is "". */
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** `actionable_mail` for a `mail_message` frame; `threadId` is the mail's thread, if it has one. */
export function actionableMail(frame: MailWakeFrame, threadId: string | null): ActionableMailFrame {
  return {
    type: 'actionable_mail',
    message_id: frame.message_id,
    conversation_id: threadId ?? frame.message_id,
    from_alias: frame.from_alias,
    from_did: frame.from_did,
    from_stable_id: frame.from_stable_id ?? '',
    from_address: frame.from_address ?? frame.from_alias,
    subject: frame.subject,
    priority: frame.priority,
    content_mode: 'legacy_plaintext_v1',
    message_version: 1,
    encrypted: false,
    unread_count: frame.unread_count,
    wake_mode: frame.wake_mode,
    created_at: frame.created_at,
  };
}

/** `actionable_chat` for a `chat_message` frame's fields (the session as the reader sees it). */
export function actionableChat(fields: Readonly<Record<string, unknown>>): ActionableChatFrame {
  const sessionId = text(fields.session_id);
  const fromAlias = text(fields.from_alias);
  const senderWaiting = fields.sender_waiting === true;
  return {
    type: 'actionable_chat',
    session_id: sessionId,
    conversation_id: sessionId,
    message_id: text(fields.message_id),
    participants: Array.isArray(fields.participants) ? fields.participants.filter((p): p is string => typeof p === 'string') : [],
    from_alias: fromAlias,
    from_did: text(fields.from_did),
    from_stable_id: text(fields.from_stable_id),
    from_address: text(fields.from_address) || fromAlias,
    last_from: text(fields.last_from) || fromAlias,
    last_message: text(fields.last_message) || text(fields.body),
    last_activity: text(fields.last_activity) || text(fields.created_at),
    unread_count: typeof fields.unread_count === 'number' ? fields.unread_count : 1,
    sender_waiting: senderWaiting,
    wake_mode: senderWaiting ? 'interrupt' : 'prompt',
  };
}
