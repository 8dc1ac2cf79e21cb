/**
 * Wake sources of the identity event stream (spec §6): each turns one kind of pending item into
 * frames. A source keeps no state; the stream keeps one cursor per source (the highest row id it
 * has seen) and asks for what came after it. Adding a kind of wake item is adding a source.
 * The frames' payloads are declared in contract/core/events.ts.
 */
import type { ControlFrame, MailWakeFrame } from '../../../../contract/core/events.ts';
import type { AppEvents } from '../../../teams/app-events.ts';
import type { ControlService } from '../control/service.ts';
import type { MailService } from '../mail/service.ts';
import { actionableChat, actionableMail } from './upstream-frames.ts';

export interface WakeItem {
  /** The item's row id in its source's table: the stream's cursor for that source. */
  id: number;
  event: string;
  data: Record<string, unknown>;
  /**
   * Creation time in whole seconds since the epoch (mail is stamped at second precision), to
   * order items of different sources oldest first; within one second, sources keep their order.
   */
  at: number;
  /**
   * For items delivered at most once: called immediately before the frame is written to a live
   * stream; false means another stream took it, and the item is skipped.
   */
  claim?: () => boolean;
  /** The same item under upstream's name, written right after it with the same id (upstream-frames.ts). */
  twin?: { event: string; data: Record<string, unknown> };
}

export interface WakeSource {
  readonly name: string;
  /**
   * The identity's pending items, oldest first: with `afterId` null the snapshot a stream shows
   * when it connects, otherwise what is new since the item with that id.
   */
  pending(agentId: string, afterId: number | null): WakeItem[];
  /**
   * The newest row id of the source, anyone's: a stream with nothing pending from this source
   * has seen it up to here. Without it, such a stream's cursor is 0.
   */
  head?(): number;
  /**
   * For a resume from `afterId`: true when items after it can no longer be sent (the source
   * keeps only a window); the stream then says `reset` and starts afresh.
   */
  lost?(agentId: string, afterId: number): boolean;
}

/** Pending items of one kind that a connecting stream replays (spec §6; upstream: the newest 50). */
export const SNAPSHOT_LIMIT = 50;

const time = (value: unknown): number => {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : Number.MAX_SAFE_INTEGER;
};

/** Unread mail: `mail_message`. Reading the stream does not mark anything read. */
export function mailWakeSource(mail: MailService): WakeSource {
  return {
    name: 'mail',
    pending: (agentId, afterId) =>
      mail.unread(agentId, afterId, SNAPSHOT_LIMIT).map((m) => {
        const data: MailWakeFrame = {
          type: 'mail_message',
          message_id: m.message_id,
          from_alias: m.from_alias,
          from_address: m.from_address,
          from_did: m.from_did,
          from_stable_id: m.from_stable_id,
          subject: m.subject,
          priority: m.priority,
          wake_mode: m.priority === 'high' || m.priority === 'urgent' ? 'prompt' : 'idle',
          created_at: m.created_at,
          unread_count: m.unread_count,
        };
        return {
          id: m.id,
          event: 'mail_message',
          at: time(m.created_at),
          data,
          twin: { event: 'actionable_mail', data: actionableMail(data, m.thread_id ?? null) },
        };
      }),
  };
}

/** What the chat service offers the stream: unread chat messages from others, oldest first. */
export interface ChatWakeProvider {
  wakeItems(agentId: string, afterId: number): Array<{ id: number; message_id: string; from_alias: string; session_id: string; [k: string]: unknown }>;
}

/** The newest {@link SNAPSHOT_LIMIT} unread chat messages, oldest first, however the provider pages. */
function newestUnread(chat: ChatWakeProvider, agentId: string): ReturnType<ChatWakeProvider['wakeItems']> {
  let tail: ReturnType<ChatWakeProvider['wakeItems']> = [];
  let after = 0;
  for (;;) {
    const page = chat.wakeItems(agentId, after);
    const last = page.at(-1);
    if (last === undefined || last.id <= after) return tail;
    tail = [...tail, ...page].slice(-SNAPSHOT_LIMIT);
    after = last.id;
  }
}

/** Unread chat messages: `chat_message` with the chat service's fields (minus its row id). */
export function chatWakeSource(chat: ChatWakeProvider): WakeSource {
  return {
    name: 'chat',
    pending(agentId, afterId) {
      return (afterId === null ? newestUnread(chat, agentId) : chat.wakeItems(agentId, afterId)).map(({ id, ...fields }) => ({
        id,
        event: 'chat_message',
        at: time(fields.created_at ?? fields.timestamp),
        data: { type: 'chat_message', ...fields },
        twin: { event: 'actionable_chat', data: actionableChat(fields) },
      }));
    },
  };
}

/** Control signals: `control_pause|control_resume|control_interrupt`, each claimed by one stream. */
export function controlWakeSource(control: ControlService): WakeSource {
  return {
    name: 'control',
    // Claimed signals leave the pending set, so the cursor is not needed to skip them.
    pending: (agentId) =>
      control.pending(agentId).map((s) => ({
        id: s.id,
        event: `control_${s.signal}`,
        at: time(s.created_at),
        data: { type: `control_${s.signal}`, signal_id: s.signal_id, signal: s.signal, created_at: s.created_at } satisfies ControlFrame,
        claim: () => control.claim(s.id),
      })),
  };
}

/**
 * App events the identity subscribed to (`docs/doc.changed`), from the last five minutes: the
 * event type is the frame name, and the payload's metadata fields sit beside the event's own.
 * A wake signal changes nothing, so nothing is consumed: a reconnecting stream may replay an
 * event, and clients deduplicate by `event_id`.
 */
export function appEventWakeSource(appEvents: AppEvents): WakeSource {
  return {
    name: 'app-events',
    pending: (agentId, afterId) =>
      appEvents.pending(agentId, afterId).map((e) => ({
        id: e.id,
        event: e.type,
        at: time(e.created_at),
        data: { type: e.type, event_id: e.event_id, team_id: e.team_id, resource_ref: e.resource_ref, ...e.payload, created_at: e.created_at },
      })),
    // A quiet stream's cursor follows the table, so a resume can tell what it missed from what
    // was never its own.
    head: () => appEvents.head(),
    lost: (agentId, afterId) => appEvents.lostAfter(agentId, afterId),
  };
}
