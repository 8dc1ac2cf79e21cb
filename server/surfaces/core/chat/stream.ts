/**
 * GET /v1/chat/sessions/{id}/stream, as upstream serves it (its CLI's send-and-wait reads it):
 * while it is open the viewer counts as connected (sender_waiting, targets_connected). `after`
 * replays up to 50 messages stored after it; then every new message and every other participant's
 * read receipt, as the session topic nudges the stream pump (server/events/stream-pump.ts: its
 * poll, keepalive and error frame are every stream's). The stream closes at its deadline.
 *
 * Every frame's id is the stream's position after it: the last message row sent, and each other
 * participant's read watermark the client knows. A reconnect with it as `Last-Event-ID` takes
 * the place of `after`: the messages and receipts since then, nothing the client saw.
 *
 * An identity keeps at most SESSION_STREAMS_PER_IDENTITY session streams open (stream-limits.ts).
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ChatSessionFrames, type ChatMessageFrame } from '../../../../contract/core/chat.ts';
import type { NodeContext } from '../../../context.ts';
import { sessionTopic } from '../../../events/bus.ts';
import { streamIds } from '../../../events/stream-ids.ts';
import { KEEPALIVE_COMMENT, pumpStream } from '../../../events/stream-pump.ts';
import { openSse, type StreamWindow } from '../../../http/sse.ts';
import type { ChatViewer } from './domain/participants.ts';
import type { ChatService } from './service.ts';

/** A position: `m` the last message row sent; `r` the read watermarks, by a short tag of each reader. */
export interface SessionStreamPosition {
  m: number;
  r: Record<string, number>;
}
const RowId = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
export const sessionStreamIds = streamIds<SessionStreamPosition>('cs1', z.object({ m: RowId, r: z.record(z.string().max(16), RowId) }));

/** A reader's tag in a position: short, so a group's id stays small. */
const tagOf = (agentId: string): string => createHash('sha256').update(agentId).digest('base64url').slice(0, 8);

export interface SessionStreamOptions {
  viewer: ChatViewer;
  sessionId: string;
  window: StreamWindow;
  /** ISO 8601 UTC (milliseconds): replay what was stored after it. */
  after: string | null;
  /** Where a reconnecting client stopped (its `Last-Event-ID`): replaces `after`. */
  resume: SessionStreamPosition | null;
}

export function streamSession(ctx: NodeContext, chat: ChatService, request: FastifyRequest, reply: FastifyReply, options: SessionStreamOptions): void {
  const { viewer, sessionId, resume } = options;
  const sse = openSse(request, reply, options.window, ChatSessionFrames);
  chat.admitStream(viewer.agentId, sse);
  sse.onClose(chat.connect(sessionId, viewer.agentId));
  // A session stream has no `connected` frame: this comment is what shows the client it is open.
  sse.comment(KEEPALIVE_COMMENT);

  // Everything below runs synchronously up to the subscription, so no write can fall between the
  // replay, the cursor and the watermarks it starts from.
  let cursor = resume?.m ?? chat.lastMessageId(sessionId);
  let watermarks = chat.readWatermarks(sessionId, viewer.agentId);
  if (resume !== null) watermarks = new Map([...watermarks.keys()].map((agentId) => [agentId, resume.r[tagOf(agentId)] ?? 0]));
  const position = (at: number): string =>
    sessionStreamIds.encode({ m: at, r: Object.fromEntries([...watermarks].filter(([, read]) => read > 0).map(([agentId, read]) => [tagOf(agentId), read])) });

  if (resume === null && options.after !== null) {
    for (const message of chat.replay(viewer, sessionId, options.after)) {
      if (!sse.send('message', { type: 'message', ...message.view } satisfies ChatMessageFrame, position(message.id))) break;
    }
  }
  sse.position = position(cursor);

  const deliver = (): void => {
    for (const message of chat.messagesAfter(viewer, sessionId, cursor)) {
      cursor = message.id;
      if (!sse.send('message', { type: 'message', ...message.view } satisfies ChatMessageFrame, position(cursor))) return;
    }
    const current = chat.readWatermarks(sessionId, viewer.agentId);
    for (const [agentId, readId] of current) {
      if (readId <= (watermarks.get(agentId) ?? 0)) continue;
      watermarks.set(agentId, readId);
      const receipt = chat.readReceipt(sessionId, agentId);
      if (receipt && !sse.send('read_receipt', receipt, position(cursor))) return;
    }
  };
  pumpStream(sse, { bus: ctx.bus, topics: [sessionTopic(sessionId)], deliver }).pass();
}
