/**
 * POST /v1/chat/sessions/{id}/read: moves the caller's read watermark up to a message. Monotonic:
 * an older message never moves it back; `messages_marked` counts others' messages newly read.
 */
import type { ChatReadMarked } from '../../../../../contract/core/chat.ts';
import { notFound } from '../../../../errors.ts';
import type { ChatDeps } from '../deps.ts';
import { memberSession, publishChange } from '../membership.ts';
import { countFromOthers, sessionMessageRowId } from '../store/messages.ts';
import { findParticipant, localParticipantIds, setReadWatermark } from '../store/participants.ts';

export function markRead({ ctx }: ChatDeps, agentId: string, sessionId: string, upToMessageId: string): ChatReadMarked {
  const { db } = ctx;
  memberSession(db, agentId, sessionId);
  const target = sessionMessageRowId(db, sessionId, upToMessageId);
  if (target === undefined) throw notFound('SVC_ERR_MESSAGE_NOT_FOUND', 'Message not found in this session');
  const now = ctx.clock.now().toISOString();
  const marked = db.transaction(() => {
    const from = findParticipant(db, sessionId, agentId)?.last_read_id ?? 0;
    if (target <= from) return null;
    const count = countFromOthers(db, sessionId, from, target, agentId);
    setReadWatermark(db, sessionId, agentId, target, now);
    return count;
  })();
  // Every participant's stream shows the receipt; the reader's own badges change too.
  if (marked !== null) publishChange(ctx.bus, sessionId, localParticipantIds(db, sessionId));
  return { success: true as const, messages_marked: marked ?? 0 };
}
