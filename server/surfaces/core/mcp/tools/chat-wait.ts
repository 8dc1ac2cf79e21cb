/**
 * Send-and-wait, server side: after an agent's message, wait for the first message from another
 * participant, read as the session's bus topic nudges the stream pump (server/events/stream-pump.ts,
 * with its poll as the fallback). The wait ends with the reply, when the other side leaves, or at
 * the deadline; a failed read rejects it.
 */
import type { ChatMessage } from '../../../../../contract/core/chat.ts';
import { sessionTopic, type EventBus } from '../../../../events/bus.ts';
import { startPump } from '../../../../events/stream-pump.ts';
import type { ChatViewer } from '../../chat/domain/participants.ts';
import type { ChatService } from '../../chat/service.ts';

export const MAX_TOOL_WAIT_SECONDS = 300;

export type WaitOutcome =
  | { status: 'replied'; reply: ChatMessage }
  | { status: 'sender_left'; reply: ChatMessage }
  | { status: 'timeout' };

export function waitForReply(
  bus: EventBus,
  chat: ChatService,
  viewer: ChatViewer,
  sessionId: string,
  afterRowId: number,
  seconds: number,
): Promise<WaitOutcome> {
  return new Promise((resolve, reject) => {
    let cursor = afterRowId;
    const finish = (outcome: WaitOutcome): void => {
      clearTimeout(timer);
      pump.stop();
      resolve(outcome);
    };
    const deliver = (): void => {
      for (const { id, view } of chat.messagesAfter(viewer, sessionId, cursor)) {
        cursor = id;
        if (view.from_agent_id === viewer.agentId) continue;
        if (view.hang_on) continue;
        return finish({ status: view.sender_leaving ? 'sender_left' : 'replied', reply: view });
      }
    };
    const pump = startPump({
      bus,
      topics: [sessionTopic(sessionId)],
      deliver,
      onError: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    });
    const timer = setTimeout(() => finish({ status: 'timeout' }), Math.min(seconds, MAX_TOOL_WAIT_SECONDS) * 1000);
    pump.pass();
  });
}
