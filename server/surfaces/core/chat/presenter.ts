/** What a chat response says in HTTP terms: where a session's live stream is. */
import type { StartChatResult } from '../../../../contract/core/chat.ts';
import type { StartedChat } from './commands/send.ts';

/** The session stream's path (routes.ts serves it). */
export const sessionStreamPath = (sessionId: string): string => `/v1/chat/sessions/${sessionId}/stream`;

/** Create-or-send's answer, in the contract's field order. */
export function startChatResult(started: StartedChat): StartChatResult {
  return {
    session_id: started.session_id,
    message_id: started.message_id,
    participants: started.participants,
    sse_url: sessionStreamPath(started.session_id),
    targets_connected: started.targets_connected,
    targets_left: started.targets_left,
  };
}
