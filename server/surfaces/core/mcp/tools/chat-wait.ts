/**
 * Send-and-wait, server side: after an agent's message, wait for the first message from another
 * participant, pushed by the session's bus topic. The wait ends with the reply, when the other
 * side leaves, or at the deadline.
 */
import type { ChatMessage } from '../../../../../contract/core/chat.ts';
import { sessionTopic, type EventBus } from '../../../../events/bus.ts';
import type { ChatService, ChatViewer } from '../../chat/service.ts';

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
  return new Promise((resolve) => {
    let cursor = afterRowId;
    const finish = (outcome: WaitOutcome): void => {
      clearTimeout(timer);
      stop();
      resolve(outcome);
    };
    const check = (): void => {
      for (const { id, view } of chat.messagesAfter(viewer, sessionId, cursor)) {
        cursor = id;
        if (view.from_agent_id === viewer.agentId) continue;
        if (view.hang_on) continue;
        return finish({ status: view.sender_leaving ? 'sender_left' : 'replied', reply: view });
      }
    };
    const stop = bus.subscribe(sessionTopic(sessionId), check);
    const timer = setTimeout(() => finish({ status: 'timeout' }), Math.min(seconds, MAX_TOOL_WAIT_SECONDS) * 1000);
    check();
  });
}
