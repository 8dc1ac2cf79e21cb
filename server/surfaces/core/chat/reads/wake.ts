/**
 * Unread chat for the identity event stream (`chat_message` wake items) and for the node-wide
 * wake feed (the owner's notifications and badges).
 */
import type { ChatDeps } from '../deps.ts';
import { isWaiting } from '../membership.ts';
import { messagesPostedSince, toWakeItem, unreadMessagesOf, type ChatMessageRow, type ChatWakeItem } from '../store/messages.ts';

/** A node-wide wake item: for which identity, and whether the message was a goodbye or a return (the session row says so at once). */
export type PostedChat = ChatWakeItem & { to_agent_id: string; sender_leaving: boolean; sender_rejoining: boolean };

/** Unread chat messages others sent to `agentId`, newer than row id `afterId`, oldest first. */
export function wakeItems(deps: ChatDeps, agentId: string, afterId: number, limit = 500): ChatWakeItem[] {
  return unreadMessagesOf(deps.ctx.db, agentId, afterId, limit).map((row) => wakeItem(deps, row));
}

/** Up to `limit` chat messages stored after row `afterId`, once per recipient of this node: the node-wide wake feed's source. */
export function postedSince(deps: ChatDeps, afterId: number, limit: number): PostedChat[] {
  return messagesPostedSince(deps.ctx.db, afterId, limit).map((row) => ({
    ...wakeItem(deps, row),
    to_agent_id: row.to_agent_id,
    sender_leaving: row.sender_leaving === 1,
    sender_rejoining: row.sender_rejoining === 1,
  }));
}

function wakeItem(deps: ChatDeps, row: ChatMessageRow): ChatWakeItem {
  return toWakeItem(row, isWaiting(deps, row.session_id, row.from_agent_id));
}
