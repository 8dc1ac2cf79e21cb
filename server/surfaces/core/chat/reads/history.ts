/** GET /v1/chat/sessions/{id}/messages: a session's newest messages and where each participant stands. */
import type { ChatHistory, ChatMember, HistoryInput } from '../../../../../contract/core/chat.ts';
import { notFound } from '../../../../errors.ts';
import type { ChatDeps } from '../deps.ts';
import { membershipOf, sessionParties, viewerOf } from '../membership.ts';
import { newestSessionMessages } from '../store/messages.ts';
import { findParticipant, sessionMemberships } from '../store/participants.ts';
import { messageView } from './message-views.ts';
import { participantView } from './party-views.ts';

/** The newest `limit` messages, oldest first. */
export function history(deps: ChatDeps, agentId: string, sessionId: string, query: HistoryInput): ChatHistory {
  const { db } = deps.ctx;
  const viewer = viewerOf(deps, agentId);
  const member = findParticipant(db, sessionId, agentId);
  if (!member) throw notFound('SVC_ERR_CHAT_SESSION_NOT_FOUND', 'Session not found');
  const rows = newestSessionMessages(db, sessionId, {
    limit: query.limit,
    reader: agentId,
    ...(query.unread_only ? { unreadBy: { agentId, lastReadId: member.last_read_id } } : {}),
    ...(query.message_id === undefined ? {} : { messageId: query.message_id }),
  });
  const memberships = sessionMemberships(db, sessionId);
  return {
    messages: rows.map((row) => messageView(deps, viewer, row)),
    // Ours: who has read how far and who left, so a client shows receipts and membership after a reload.
    participants: sessionParties(deps, sessionId).map((party): ChatMember => {
      const membership = membershipOf(memberships, party);
      const readUpTo = membership?.last_read_message_id ?? null;
      return {
        ...participantView(viewer, party),
        last_read_message_id: readUpTo,
        read_at: readUpTo === null ? null : (membership?.last_read_at ?? null),
        left_at: membership?.left_at ?? null,
      };
    }),
  };
}
