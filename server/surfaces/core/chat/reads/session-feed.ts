/**
 * What the session stream (chat/stream.ts) and the MCP send-and-wait read: who may open it, who
 * is connected, the messages after a cursor or a time, and read receipts.
 */
import type { ReadReceipt } from '../../../../../contract/core/chat.ts';
import { forbidden } from '../../../../errors.ts';
import { identityTopic } from '../../../../events/bus.ts';
import type { ChatDeps } from '../deps.ts';
import type { ChatViewer } from '../domain/participants.ts';
import { HANG_ON_EXTENSION_SECONDS } from '../domain/wait-window.ts';
import { isWaiting, viewerOf } from '../membership.ts';
import { messagesStoredAfter, sessionMessagesAfter } from '../store/messages.ts';
import { findParticipant, localParticipantIds, readPosition } from '../store/participants.ts';
import { streamMessages, type StreamMessage } from './message-views.ts';

/** How many messages a session stream replays for `after`. */
export const STREAM_REPLAY_LIMIT = 50;

/** The stream's gate: a non-participant (or an unknown session) is refused before it opens. */
export function assertStreamable(deps: ChatDeps, agentId: string, sessionId: string): ChatViewer {
  if (!findParticipant(deps.ctx.db, sessionId, agentId)) throw forbidden('SVC_ERR_CHAT_NOT_PARTICIPANT', 'Not a participant in this session');
  return viewerOf(deps, agentId);
}

/**
 * Marks the viewer connected to the session while its stream is open, and nudges the other
 * participants' identity streams (their `sender_waiting` changed). Returns the release.
 */
export function connect({ ctx, presence }: ChatDeps, sessionId: string, agentId: string): () => void {
  const release = presence.connect(sessionId, agentId);
  const others = localParticipantIds(ctx.db, sessionId).filter((id) => id !== agentId);
  const nudge = (): void => {
    for (const id of others) ctx.bus.publish(identityTopic(id));
  };
  nudge();
  return () => {
    release();
    nudge();
  };
}

/** The newest `limit` messages stored after `afterIso`, oldest first (the stream's replay). */
export function replay(deps: ChatDeps, viewer: ChatViewer, sessionId: string, afterIso: string, limit = STREAM_REPLAY_LIMIT): StreamMessage[] {
  return streamMessages(deps, viewer, messagesStoredAfter(deps.ctx.db, sessionId, afterIso, limit, viewer.agentId), (row) =>
    isWaiting(deps, sessionId, row.from_agent_id),
  );
}

/** Messages with a row id above `afterId`, oldest first. */
export function messagesAfter(deps: ChatDeps, viewer: ChatViewer, sessionId: string, afterId: number, limit = 500): StreamMessage[] {
  return streamMessages(deps, viewer, sessionMessagesAfter(deps.ctx.db, sessionId, afterId, limit, viewer.agentId), (row) =>
    isWaiting(deps, sessionId, row.from_agent_id),
  );
}

/** The read-receipt frame for a participant's current watermark; none before it has read. */
export function readReceipt({ ctx }: ChatDeps, sessionId: string, readerAgentId: string): ReadReceipt | null {
  const position = readPosition(ctx.db, sessionId, readerAgentId);
  if (!position) return null;
  return {
    type: 'read_receipt',
    session_id: sessionId,
    reader_alias: position.alias,
    up_to_message_id: position.message_id,
    extends_wait_seconds: HANG_ON_EXTENSION_SECONDS,
    timestamp: position.last_read_at ?? ctx.clock.now().toISOString(),
  };
}
