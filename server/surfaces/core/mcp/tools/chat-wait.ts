/**
 * Send-and-wait, server side: after an agent's message, wait for the first message from another
 * participant, read as the session's bus topic nudges the stream pump (server/events/stream-pump.ts,
 * with its poll as the fallback). The wait ends with the reply, when the other side leaves, at
 * the deadline, or when the caller goes away (`signal`: the MCP request was cancelled or its
 * connection closed); a failed read rejects it. While it waits, `onTick` runs once a second with
 * the seconds waited so far (the tool turns them into progress notifications).
 */
import type { ChatMessage } from '../../../../../contract/core/chat.ts';
import { sessionTopic, type EventBus } from '../../../../events/bus.ts';
import { startPump } from '../../../../events/stream-pump.ts';
import type { ChatViewer } from '../../chat/domain/participants.ts';
import type { ChatService } from '../../chat/service.ts';

export type WaitOutcome = { status: 'replied'; reply: ChatMessage } | { status: 'sender_left'; reply: ChatMessage } | { status: 'timeout' };

export interface WaitOptions {
  sessionId: string;
  /** The row id of the agent's own message: replies are what comes after it. */
  afterRowId: number;
  seconds: number;
  signal?: AbortSignal;
  onTick?: (elapsedSeconds: number) => void;
}

export function waitForReply(bus: EventBus, chat: ChatService, viewer: ChatViewer, options: WaitOptions): Promise<WaitOutcome> {
  const { sessionId, seconds, signal, onTick } = options;
  return new Promise((resolve, reject) => {
    let cursor = options.afterRowId;
    let elapsed = 0;
    const stop = (): void => {
      clearTimeout(timer);
      clearInterval(ticker);
      signal?.removeEventListener('abort', abort);
      pump.stop();
    };
    const finish = (outcome: WaitOutcome): void => {
      stop();
      resolve(outcome);
    };
    const abort = (): void => {
      stop();
      reject(signal?.reason instanceof Error ? signal.reason : new Error('The wait was cancelled'));
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
        stop();
        reject(error);
      },
    });
    const timer = setTimeout(() => finish({ status: 'timeout' }), seconds * 1000);
    const ticker = setInterval(() => onTick?.(++elapsed), 1000);
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    pump.pass();
  });
}
