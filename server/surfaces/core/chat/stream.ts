/**
 * GET /v1/chat/sessions/{id}/stream (upstream research/anchor-core.md §11.2): while it is open
 * the viewer counts as connected (sender_waiting, targets_connected). `after` replays up to 50
 * messages stored after it; then every new message and every other participant's read receipt,
 * pushed from the session topic the moment the write commits, with a 1 s poll as the fallback
 * and a `: keepalive` comment every 30 s. The stream closes at its deadline.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatMessageFrame, StreamError } from '../../../../contract/core/chat.ts';
import type { NodeContext } from '../../../context.ts';
import { sessionTopic } from '../../../events/bus.ts';
import { openSse } from '../../../http/sse.ts';
import type { ChatService, ChatViewer } from './service.ts';

export const POLL_INTERVAL_MS = 1000;
export const KEEPALIVE_INTERVAL_MS = 30_000;

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
  const release = chat.connect(sessionId, viewer.agentId);
  sse.comment('keepalive');

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
  // A failed read ends the stream with an error frame (as the identity stream does); never a crash.
  const pump = (): void => {
    if (sse.closed) return;
    try {
      deliver();
    } catch (error) {
      request.log.error({ err: error }, 'chat session stream failed');
      sse.send('error', { type: 'error', detail: 'poll failure' } satisfies StreamError);
      sse.close();
    }
  };

  // A nudge runs the pump on the next turn: the writer's response is not held up by the streams,
  // and a burst of writes becomes one pass.
  let scheduled = false;
  const nudge = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  };
  const unsubscribe = ctx.bus.subscribe(sessionTopic(sessionId), nudge);
  const poll = setInterval(pump, POLL_INTERVAL_MS);
  const keepalive = setInterval(() => sse.comment('keepalive'), KEEPALIVE_INTERVAL_MS);
  sse.onClose(() => {
    unsubscribe();
    clearInterval(poll);
    clearInterval(keepalive);
    release();
  });
}
