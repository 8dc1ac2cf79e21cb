/**
 * Events (spec §4.5, §6; DESIGN §5): app-event subscriptions (`/v1/events/subscriptions`), and the
 * frames of the two event streams, declared here although an SSE route has no JSON response
 * schema, so the node writes them and the UI and the desktop shell read them from one definition:
 *
 * - an identity's stream, `GET /v1/events/stream` (`connected`, `mail_message`, `chat_message`
 *   and upstream's names for them, `actionable_mail`, `actionable_chat`,
 *   `control_pause|resume|interrupt`, app events such as `docs/doc.changed`, `error`);
 * - the owner's node-wide feed, `GET /v1/node/events/stream` (`connected`, new mail and chat for
 *   every identity as `NodeWakeItem`s, and nudges that something the UI shows changed).
 *
 * A chat session's own stream is in contract/core/chat.ts. What every stream shares is here:
 * `deadline` and `Last-Event-ID` in, `error`, `deadline`, `reset` and `superseded` frames out,
 * and an opaque `id:` on every frame that a reconnect sends back as `Last-Event-ID` to resume
 * after it.
 */
import { z } from 'zod';
import { Signal } from './control.ts';
import { Priority } from './mail.ts';

/**
 * Every stream requires `deadline`: when it closes (RFC 3339 with a timezone, at most 300 s ahead).
 * Its absence is refused here, in the words the route uses; whether it is a time, and not past, the
 * route checks itself (http/sse.ts), since a reconnect after it is answered 204, not refused.
 */
export const DeadlineParam = z
  .string({
    error: (issue) =>
      issue.input === undefined ? 'deadline is required: an RFC 3339 timestamp at most 300 s ahead' : 'deadline must be an RFC 3339 timestamp with a timezone',
  })
  .meta({ format: 'date-time' })
  .describe('RFC 3339 timestamp with a timezone, at most 300 s ahead: the stream closes then');

/** An identity's stream and the owner feed. */
export const EventStreamQuery = z.object({ deadline: DeadlineParam });

/** The longest `Last-Event-ID` a stream takes: its ids are far shorter. */
export const MAX_EVENT_ID_LENGTH = 2048;

/**
 * Every stream's resume header: the `id:` of the last frame the client received (EventSource sends
 * it by itself when it reconnects). Opaque: send it back exactly as received.
 */
export const StreamResumeHeaders = z.object({
  'last-event-id': z
    .string()
    .max(MAX_EVENT_ID_LENGTH)
    .optional()
    .describe('The id of the last frame received: the stream resumes after it (nothing repeated, nothing in between lost)'),
});

/** `error`: the stream failed, and closes (an identity's stream and a chat session's). */
export const StreamError = z.object({ type: z.literal('error'), detail: z.string() });
export type StreamError = z.output<typeof StreamError>;

/**
 * `deadline`: the caller's deadline was reached; the stream closes after this frame (on every
 * stream). A reconnect with the same, now past, deadline and `Last-Event-ID` is answered 204 No
 * Content, which stops EventSource; to go on, open the stream again with a new deadline. When the
 * node's 300 s cap ends a stream before the caller's deadline, there is no such frame.
 */
export const StreamDeadline = z.object({ type: z.literal('deadline'), deadline: z.string() });
export type StreamDeadline = z.output<typeof StreamDeadline>;

/**
 * `superseded`: the holder (an identity, or the owner) opened more streams than the node keeps
 * open at once (`limit`, docs/security.md: "Work a request can cause"); this one, its oldest, closes after
 * this frame. The response ends normally: EventSource reconnects after `retry:`.
 */
export const StreamSuperseded = z.object({ type: z.literal('superseded'), detail: z.string(), limit: z.number().int() });
export type StreamSuperseded = z.output<typeof StreamSuperseded>;

/**
 * `reset`: the stream was resumed (`Last-Event-ID`) from further back than it can replay, so
 * frames in between are missing; what follows is what a fresh connection gets (the owner's feed:
 * what happens from now on; an identity's stream: its pending items). Reload what you show.
 * Sent right after `connected`, only on a resume.
 */
export const StreamReset = z.object({ type: z.literal('reset'), detail: z.string() });
export type StreamReset = z.output<typeof StreamReset>;

// ------------------------------------------------------------------ app events and subscriptions

/** The app event types a subscription may name. */
export const APP_EVENT_TYPES = ['docs/doc.changed'] as const;
export const AppEventType = z.enum(APP_EVENT_TYPES, { error: `must be a known app event type (${APP_EVENT_TYPES.join(', ')})` });
export type AppEventType = z.output<typeof AppEventType>;

/**
 * `POST /v1/events/subscriptions`: an app event type, optionally one resource (a document slug;
 * null or absent = every resource), optionally the team (required when the identity is in several).
 */
export const SubscriptionBody = z.strictObject({
  type: AppEventType,
  resource_ref: z.string().min(1).max(256).nullable().default(null),
  team_id: z.string().min(1).max(256).optional(),
});
export type SubscriptionInput = z.output<typeof SubscriptionBody>;

export const SubscriptionIdParams = z.object({ subscription_id: z.string().min(1).max(256) });

/** A subscription (201 when made, 200 when it already existed). */
export const EventSubscription = z.object({
  subscription_id: z.string(),
  type: z.string(),
  team_id: z.string(),
  /** null: every resource of the type. */
  resource_ref: z.string().nullable(),
  created_at: z.string(),
});
export type EventSubscription = z.output<typeof EventSubscription>;

export const SubscriptionList = z.object({ subscriptions: z.array(EventSubscription) });
export type SubscriptionList = z.output<typeof SubscriptionList>;

export const SubscriptionRemoved = z.object({ deleted: z.literal(true) });

/** How a document's new version was written. */
export const DOC_CHANGE_SOURCES = ['api', 'template', 'present-link'] as const;
export type DocChangeSource = (typeof DOC_CHANGE_SOURCES)[number];

/** `docs/doc.changed`: a document of the team gained a version (metadata only; clients deduplicate by `event_id`). */
export const DocChangedFrame = z.object({
  type: z.literal('docs/doc.changed'),
  event_id: z.string(),
  team_id: z.string(),
  /** The document's slug. */
  resource_ref: z.string(),
  slug: z.string(),
  version: z.number().int(),
  source: z.enum(DOC_CHANGE_SOURCES),
  created_at: z.string(),
});
export type DocChangedFrame = z.output<typeof DocChangedFrame>;

// ------------------------------------------------------------------ an identity's stream

/**
 * `connected`: the stream is open for this identity. `team_id` (upstream's field) for a team
 * identity: the team whose certificate opened the stream, else the one team it is a member of.
 */
export const IdentityConnected = z.object({ agent_id: z.string(), project_id: z.string(), team_id: z.string().optional() });
export type IdentityConnected = z.output<typeof IdentityConnected>;

/** `mail_message`: unread mail (reading the stream marks nothing read). */
export const MailWakeFrame = z.object({
  type: z.literal('mail_message'),
  message_id: z.string(),
  from_alias: z.string(),
  from_address: z.string().nullable(),
  from_did: z.string(),
  from_stable_id: z.string().nullable(),
  subject: z.string(),
  priority: Priority,
  /** `prompt` for high and urgent mail: worth waking an idle agent for. */
  wake_mode: z.enum(['prompt', 'idle']),
  created_at: z.string(),
  /** Upstream's: the identity's unread mail when the frame was written. */
  unread_count: z.number().int(),
});
export type MailWakeFrame = z.output<typeof MailWakeFrame>;

/** `chat_message`: an unread chat message from someone else. */
export const ChatWakeFrame = z.object({
  type: z.literal('chat_message'),
  message_id: z.string(),
  session_id: z.string(),
  from_alias: z.string(),
  from_address: z.string().nullable(),
  from_did: z.string(),
  from_stable_id: z.string().nullable(),
  body: z.string(),
  /** The first 200 characters of the body. */
  preview: z.string(),
  created_at: z.string(),
  /** The sender has the session's stream open: it is waiting for an answer. */
  sender_waiting: z.boolean(),
  // Upstream's session summary beside the message:
  /** The other participants' aliases. */
  participants: z.array(z.string()),
  /** The session's newest message (its body) and who wrote it (alias). */
  last_message: z.string(),
  last_from: z.string(),
  last_activity: z.string(),
  /** Messages of the session the identity has not read. */
  unread_count: z.number().int(),
  /** `interrupt` while the sender waits for an answer, else `prompt`. */
  wake_mode: z.enum(['interrupt', 'prompt']),
});
export type ChatWakeFrame = z.output<typeof ChatWakeFrame>;

/**
 * `actionable_mail`: upstream's name for the same wake item as `mail_message`, sent right after it
 * with the same id, in upstream's shape (its Go client and CLI know only this name): strings are
 * never null, and `conversation_id` is the mail's thread (its own id when it has none).
 */
export const ActionableMailFrame = z.object({
  type: z.literal('actionable_mail'),
  message_id: z.string(),
  conversation_id: z.string(),
  from_alias: z.string(),
  from_did: z.string(),
  from_stable_id: z.string(),
  from_address: z.string(),
  subject: z.string(),
  priority: Priority,
  /** Upstream's mail format names; mail on this node is plaintext, version 1. */
  content_mode: z.literal('legacy_plaintext_v1'),
  message_version: z.literal(1),
  encrypted: z.literal(false),
  unread_count: z.number().int(),
  wake_mode: z.enum(['prompt', 'idle']),
  created_at: z.string(),
});
export type ActionableMailFrame = z.output<typeof ActionableMailFrame>;

/**
 * `actionable_chat`: upstream's name for the same wake item as `chat_message`, sent right after it
 * with the same id: the session as the reader sees it (`conversation_id` is the session).
 */
export const ActionableChatFrame = z.object({
  type: z.literal('actionable_chat'),
  session_id: z.string(),
  conversation_id: z.string(),
  message_id: z.string(),
  participants: z.array(z.string()),
  from_alias: z.string(),
  from_did: z.string(),
  from_stable_id: z.string(),
  from_address: z.string(),
  last_from: z.string(),
  last_message: z.string(),
  last_activity: z.string(),
  unread_count: z.number().int(),
  sender_waiting: z.boolean(),
  wake_mode: z.enum(['interrupt', 'prompt']),
});
export type ActionableChatFrame = z.output<typeof ActionableChatFrame>;

/** `control_pause`, `control_resume`, `control_interrupt`: delivered to one stream, once. */
export const CONTROL_FRAMES = ['control_pause', 'control_resume', 'control_interrupt'] as const satisfies readonly `control_${Signal}`[];
export const ControlFrame = z.object({
  type: z.enum(CONTROL_FRAMES),
  signal_id: z.string(),
  signal: Signal,
  created_at: z.string(),
});
export type ControlFrame = z.output<typeof ControlFrame>;

/** Each frame of an identity's stream, by its SSE event name. */
export const IdentityStreamFrames = {
  connected: IdentityConnected,
  mail_message: MailWakeFrame,
  chat_message: ChatWakeFrame,
  actionable_mail: ActionableMailFrame,
  actionable_chat: ActionableChatFrame,
  control_pause: ControlFrame,
  control_resume: ControlFrame,
  control_interrupt: ControlFrame,
  'docs/doc.changed': DocChangedFrame,
  reset: StreamReset,
  superseded: StreamSuperseded,
  error: StreamError,
  deadline: StreamDeadline,
} as const;

// ------------------------------------------------------------------ the owner's node-wide feed

/** `connected`: the owner's feed is open. */
export const NodeConnected = z.object({ node_id: z.string() });

/** `mail_message` on the owner's feed: new mail for one identity of this node. */
export const NodeMailWake = z.object({
  agent_id: z.string(),
  type: z.literal('mail_message'),
  message_id: z.string(),
  from_alias: z.string(),
  from_address: z.string().nullable(),
  /** Empty for an end-to-end encrypted mail: the owner's feed never carries what one says. */
  subject: z.string(),
  /** Whether it is end-to-end encrypted (a notification says so rather than a subject). */
  end_to_end: z.boolean(),
  priority: Priority,
  created_at: z.string(),
});
export type NodeMailWake = z.output<typeof NodeMailWake>;

/** `chat_message` on the owner's feed: a new chat message for one identity of this node. */
export const NodeChatWake = z.object({
  agent_id: z.string(),
  type: z.literal('chat_message'),
  message_id: z.string(),
  from_alias: z.string(),
  from_address: z.string().nullable(),
  session_id: z.string(),
  /** The first 200 characters of the body; empty for an end-to-end encrypted message: the owner's feed never carries what one says. */
  preview: z.string(),
  /** Whether it is end-to-end encrypted (a notification says so rather than a preview). */
  end_to_end: z.boolean(),
  /** The message said its sender was leaving, or took its sender back into the chat. */
  sender_leaving: z.boolean(),
  sender_rejoining: z.boolean(),
  created_at: z.string(),
});
export type NodeChatWake = z.output<typeof NodeChatWake>;

/** New mail or chat for an identity of this node: the UI's badges, the desktop's notifications. */
export const NodeWakeItem = z.discriminatedUnion('type', [NodeMailWake, NodeChatWake]);
export type NodeWakeItem = z.output<typeof NodeWakeItem>;

/** `mail_changed`: an identity's message was archived, unarchived, deleted, or marked read or unread. */
export const MailChanged = z.object({ agent_id: z.string(), message_id: z.string() });
/** `library_changed`, `docs_changed`: a team's shelf or documents changed. */
export const TeamChanged = z.object({ team_id: z.string() });
/** `catalog_changed`, `tunnel_changed`, `teams_changed`, `devices_changed`, `backups_changed` (a backup started, moved on or ended): re-read it. */
export const Changed = z.object({});

/** The feed's nudges, by SSE event name: what changed, never the data itself. */
export const NodeFeedChanges = {
  mail_changed: MailChanged,
  library_changed: TeamChanged,
  docs_changed: TeamChanged,
  catalog_changed: Changed,
  tunnel_changed: Changed,
  teams_changed: Changed,
  /** A device joined or was revoked: Settings → Devices re-reads the list. */
  devices_changed: Changed,
  backups_changed: Changed,
} as const;
export type NodeChangeKind = keyof typeof NodeFeedChanges;

/**
 * `agent.online`, `agent.offline`: an identity's presence changed (an event stream opened or a
 * heartbeat arrived; its last stream closed with no live heartbeat, or its heartbeat expired).
 */
export const NodeAgentPresence = z.object({
  agent_id: z.string(),
  type: z.enum(['agent.online', 'agent.offline']),
  online: z.boolean(),
  /** When the node saw the change (an expired heartbeat: when the feed's sweep noticed it). */
  at: z.string(),
  /** The last sign of life: a heartbeat, a stream opening or closing; null when none. */
  last_seen: z.string().nullable(),
});
export type NodeAgentPresence = z.output<typeof NodeAgentPresence>;

/** Each frame of the owner's feed, by its SSE event name. */
export const NodeFeedFrames = {
  connected: NodeConnected,
  mail_message: NodeMailWake,
  chat_message: NodeChatWake,
  ...NodeFeedChanges,
  'agent.online': NodeAgentPresence,
  'agent.offline': NodeAgentPresence,
  reset: StreamReset,
  superseded: StreamSuperseded,
  // A failed read ends the feed with this frame (the stream pump's rule for every stream).
  error: StreamError,
  deadline: StreamDeadline,
} as const;
