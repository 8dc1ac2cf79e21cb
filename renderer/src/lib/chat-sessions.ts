/**
 * The chat list's rows: a session's title, its place in the list, whether someone waits for me,
 * and the summary of its last message, from whichever source said it last (the node's page, a
 * message of the open conversation, or one arriving live). Pure; tested in
 * chat-sessions.test.ts.
 */
import type { ChatLastMessage, ChatMessage, ChatSession } from '../api/chat.ts';
import type { NodeChatWake } from '../api/owner.ts';
import { isMine } from './chat.ts';
import { plural } from './format.ts';

/** The summary a session row shows under its participants. */
export interface LastMessage {
  message_id: string;
  body: string;
  from_alias: string;
  created_at: string;
  mine: boolean;
  /** The message said its sender was leaving. */
  leaving: boolean;
  /** The message took its sender back into the chat. */
  rejoining?: boolean;
  /**
   * It crossed, and is stored, end-to-end encrypted; null when its source did not say (a live
   * arrival, whose notice carries no such word, or a send of mine the node has not read back).
   */
  end_to_end: boolean | null;
}

/** The other participants as a title: "bob", "bob and carol", "bob, carol and 2 others". */
export function sessionTitle(session: Pick<ChatSession, 'participants'>): string {
  const names = session.participants;
  if (names.length === 0) return 'Only you';
  if (names.length === 1) return names[0] as string;
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  const rest = names.length - 2;
  return `${names[0]}, ${names[1]} and ${plural(rest, 'other')}`;
}

/** The session with new activity goes to the top, changed by `update`; the others keep their order. */
export function moveToFront(sessions: readonly ChatSession[], sessionId: string, update: (session: ChatSession) => ChatSession): ChatSession[] {
  const index = sessions.findIndex((s) => s.session_id === sessionId);
  if (index < 0) return [...sessions];
  return [update(sessions[index] as ChatSession), ...sessions.slice(0, index), ...sessions.slice(index + 1)];
}

/**
 * What a session row says about the others: waiting for my answer (someone is in the chat and
 * the last word was theirs), present, or nothing.
 */
export function presence(
  // `you_left` is ours: a session from an older node does not say.
  session: Pick<ChatSession, 'sender_waiting' | 'unread_count'> & Partial<Pick<ChatSession, 'you_left'>>,
  last: LastMessage | null,
): 'waiting' | 'present' | null {
  // Someone who said goodbye is not waiting, even with the chat still open on their screen; and
  // nobody waits for me in a chat I left.
  if (!session.sender_waiting || last?.leaving === true || session.you_left === true) return null;
  const theirTurn = session.unread_count > 0 || (last !== null && !last.mine);
  return theirTurn ? 'waiting' : 'present';
}

/** A session row's summary from the node's `last_message`. */
export function lastFromSummary(last: ChatLastMessage, myAgentId: string | null | undefined): LastMessage {
  return {
    message_id: last.message_id,
    body: last.preview,
    from_alias: last.from_alias,
    created_at: last.created_at,
    mine: isMine(last, myAgentId),
    leaving: last.sender_leaving,
    rejoining: last.sender_rejoining,
    end_to_end: last.end_to_end,
  };
}

/**
 * A session row's summary from a message of the open conversation (from its stream, or my send:
 * then `endToEnd` says what is known of how the node sent it, null until its copy says).
 */
export function lastFromMessage(
  message: Pick<ChatMessage, 'message_id' | 'body' | 'from_alias' | 'created_at' | 'from_agent_id' | 'sender_leaving' | 'sender_rejoining' | 'end_to_end'>,
  myAgentId: string | null | undefined,
  endToEnd: boolean | null = message.end_to_end,
): LastMessage {
  return {
    message_id: message.message_id,
    body: message.body,
    from_alias: message.from_alias,
    created_at: message.created_at,
    mine: isMine(message, myAgentId),
    leaving: message.sender_leaving,
    rejoining: message.sender_rejoining === true,
    end_to_end: endToEnd,
  };
}

/** A session row's summary from a chat message arriving live for me (so never mine). */
export function lastFromWake(
  // An item from an older node may say neither whether its sender left nor whether it came back.
  item: Pick<NodeChatWake, 'message_id' | 'preview' | 'from_alias' | 'created_at'> &
    Partial<Pick<NodeChatWake, 'sender_leaving' | 'sender_rejoining' | 'end_to_end'>>,
): LastMessage {
  return {
    message_id: item.message_id,
    body: item.preview,
    from_alias: item.from_alias,
    created_at: item.created_at,
    mine: false,
    leaving: item.sender_leaving === true,
    rejoining: item.sender_rejoining === true,
    // An older node's notice does not say how it was sent: the row shows no mark until the list is read again.
    end_to_end: item.end_to_end ?? null,
  };
}

/** The row's preview line: a goodbye or a return in words, else the message itself. */
export function lastPreview(last: LastMessage): string {
  const who = last.mine ? 'You' : last.from_alias;
  if (last.leaving) return `${who} left the chat`;
  if (last.rejoining === true) return `${who} rejoined the chat`;
  // The owner's feed never carries an encrypted message's words: the row says what it is until the list is read again.
  const body = last.body === '' && last.end_to_end === true ? 'End-to-end encrypted message' : last.body;
  return last.mine ? `You: ${body}` : body;
}

/** The rows' summaries with the node's `last_message` of each session in `page` taken in (newer ones already known stay). */
export function withSummaries(
  last: Readonly<Record<string, LastMessage>>,
  page: readonly Pick<ChatSession, 'session_id' | 'last_message'>[],
  myAgentId: string | null | undefined,
): Record<string, LastMessage> {
  const next = { ...last };
  for (const s of page) {
    const known = next[s.session_id];
    if (s.last_message != null && (known === undefined || known.created_at <= s.last_message.created_at)) {
      next[s.session_id] = lastFromSummary(s.last_message, myAgentId);
    }
  }
  return next;
}
