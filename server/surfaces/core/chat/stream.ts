/**
 * GET /v1/chat/sessions/{id}/stream (upstream research/anchor-core.md §11.2): while it is open
 * the viewer counts as connected (sender_waiting, targets_connected). `after` replays up to 50
 * messages stored after it; then every new message and every other participant's read receipt,
 * as the session topic nudges the stream pump (server/events/stream-pump.ts: its poll, keepalive
 * and error frame are every stream's). The stream closes at its deadline.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatMessageFrame } from '../../../../contract/core/chat.ts';
import type { NodeContext } from '../../../context.ts';
import { sessionTopic } from '../../../events/bus.ts';
import { KEEPALIVE_COMMENT, pumpStream } from '../../../events/stream-pump.ts';
import { openSse } from '../../../http/sse.ts';
import type { ChatViewer } from './domain/participants.ts';
import type { ChatService } from './service.ts';

export interface SessionStreamOptions {
  viewer: ChatViewer;
  sessionId: string;
  deadline: Date;
  /** ISO 8601 UTC (milliseconds): replay what was stored after it. */
  after: string | null;
}

export function streamSession(ctx: NodeContext, chat: ChatService, request: FastifyRequest, reply: FastifyReply, options: SessionStreamOptions): void {
  const { viewer, sessionId } = options;
  const sse = openSse(request, reply, options.deadline);
  sse.onClose(chat.connect(sessionId, viewer.agentId));
  // A session stream has no `connected` frame: this comment is what shows the client it is open.
  sse.comment(KEEPALIVE_COMMENT);

  // Everything below runs synchronously up to the subscription, so no write can fall between the
  // replay, the cursor and the watermarks it starts from.
  if (options.after !== null) {
    for (const message of chat.replay(viewer, sessionId, options.after)) {
      if (!sse.send('message', { type: 'message', ...message.view } satisfies ChatMessageFrame)) break;
    }
  }
  let cursor = chat.lastMessageId(sessionId);
  let watermarks = chat.readWatermarks(sessionId, viewer.agentId);

  const deliver = (): void => {
    for (const message of chat.messagesAfter(viewer, sessionId, cursor)) {
      if (!sse.send('message', { type: 'message', ...message.view } satisfies ChatMessageFrame)) return;
      cursor = message.id;
    }
    const current = chat.readWatermarks(sessionId, viewer.agentId);
    for (const [agentId, readId] of current) {
      if (readId <= (watermarks.get(agentId) ?? 0)) continue;
      const receipt = chat.readReceipt(sessionId, agentId);
      if (receipt && !sse.send('read_receipt', receipt)) return;
    }
    watermarks = current;
  };
  pumpStream(sse, { bus: ctx.bus, topics: [sessionTopic(sessionId)], deliver });
}
