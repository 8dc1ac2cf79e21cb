/**
 * Chat (`/v1/chat/...`, spec §4.4; upstream's shapes, docs/adr/0001-upstream-wire-primitives.md):
 * the requests the node validates, its answers, and the frames of a session's stream, as zod
 * schemas that also describe the API. Bodies are strict: an unknown field is a 422, as upstream's
 * extra=forbid. The UI takes the inferred types only.
 */
import { z } from 'zod';
import { parseRfc3339 } from '../core-rules.ts';
import { DeadlineParam, StreamDeadline, StreamError, StreamSuperseded } from './events.ts';
import { ClientMessageId, ClientTimestamp, clientSigningFields, refineClientSigning, SignatureStatus } from './mail.ts';
import { ContentMode, MessageVersion, refineEncryptedSend, sendEncryptionFields, StoredEnvelope, storedEncryptionFields } from './end-to-end.ts';
import { aliasSelector, RotationAnnouncement } from './identities.ts';
import { NamespaceTrust, ReplacementAnnouncement } from './namespaces.ts';

export { MAX_CHAT_MESSAGE_BYTES } from '../core-rules.ts';

/** How long a send-and-wait may wait. */
export const MAX_WAIT_SECONDS = 3600;
/** Targets of one create-or-send, over all three lists. */
export const MAX_CHAT_TARGETS = 50;
/** Sessions per page when the caller pages the list (without `limit`, the whole list, as upstream). */
export const MAX_SESSIONS_PAGE = 500;

// ------------------------------------------------------------------ requests

const uniqueList = <T extends z.ZodType<string>>(item: T) =>
  z
    .array(item)
    .max(MAX_CHAT_TARGETS)
    .default([])
    .superRefine((values, ctx) => {
      const seen = new Set<string>();
      values.forEach((value, index) => {
        if (seen.has(value)) ctx.addIssue({ code: 'custom', path: [index], message: `duplicate target ${value}` });
        seen.add(value);
      });
    });

const flags = {
  hang_on: z.boolean().default(false),
  leaving: z.boolean().default(false),
  reply_to: z.uuid().optional(),
  /** Upstream's: the message's id, and the send's idempotency key (as mail's, contract/core/mail.ts). */
  message_id: ClientMessageId.optional(),
  /** Upstream's: read only beside a client signature; a message the node signs carries the node's time. */
  timestamp: ClientTimestamp.optional(),
  /** A client-signed message (contract/core/mail.ts): verified and stored instead of signed in custody. */
  ...clientSigningFields,
  /**
   * End-to-end encryption (contract/core/end-to-end.ts): left out, a message is sealed for every
   * other participant when all of them publish a key; `legacy_plaintext_v1` sends plaintext by
   * name; a client that holds its own keys posts the envelope it made, with the text left empty.
   */
  ...sendEncryptionFields,
};

/** Without an envelope a message says something; with one, its text is inside it and the field is empty. */
function refineChatText(text: string, field: 'message' | 'body', body: { encrypted_envelope?: unknown }, ctx: z.RefinementCtx): void {
  if (body.encrypted_envelope === undefined && text === '') ctx.addIssue({ code: 'custom', path: [field], message: `${field} must not be empty` });
}

/** `POST /v1/chat/sessions`: create-or-send (a two-party session is reused). */
export const CreateSessionBody = z
  .strictObject({
    /** Aliases of the sender's project, `<project>~<alias>` for another project of this node, or addresses. */
    to_aliases: uniqueList(aliasSelector),
    to_addresses: uniqueList(z.string().min(3).max(320)),
    to_dids: uniqueList(z.string().min(1).max(256)),
    /** Empty only beside an `encrypted_envelope`, which holds the text. */
    message: z.string(),
    /**
     * Upstream's: the id the client gives the chat it starts (its envelope's `conversation_id`).
     * Taken for a new session when it is free; a pair that already has a session must name that one.
     */
    session_id: z.uuid({ error: 'session_id must be a UUID' }).optional(),
    wait_seconds: z.int().min(0).max(MAX_WAIT_SECONDS).optional(),
    ...flags,
  })
  .superRefine((body, ctx) => {
    refineClientSigning(body, ctx);
    refineEncryptedSend({ ...body, body: body.message }, ctx);
    refineChatText(body.message, 'message', body, ctx);
    const conversation = (body.encrypted_envelope as { conversation_id?: unknown } | undefined)?.conversation_id;
    if (body.session_id !== undefined && typeof conversation === 'string' && conversation !== body.session_id) {
      ctx.addIssue({ code: 'custom', path: ['session_id'], message: "session_id is the envelope's conversation_id: they name the same chat" });
    }
    const count = body.to_aliases.length + body.to_addresses.length + body.to_dids.length;
    if (count === 0) ctx.addIssue({ code: 'custom', path: ['to_aliases'], message: 'at least one of to_aliases, to_addresses or to_dids is required' });
    if (count > MAX_CHAT_TARGETS) ctx.addIssue({ code: 'custom', path: ['to_aliases'], message: `at most ${MAX_CHAT_TARGETS} targets` });
  });
export type CreateSessionInput = z.output<typeof CreateSessionBody>;
/** A create-or-send as a client writes it (the lists and flags may be left out). */
export type CreateSessionRequest = z.input<typeof CreateSessionBody>;

/**
 * `POST /v1/chat/sessions/{id}/messages`. `rejoining` is ours: the send takes its sender back into
 * a chat it left (any send does, as upstream has it; this one says so, and is refused when there
 * is nothing to rejoin).
 */
export const SendMessageBody = z
  .strictObject({ body: z.string(), ...flags, rejoining: z.boolean().default(false) })
  .refine((body) => !(body.leaving && body.rejoining), { path: ['rejoining'], message: 'a message cannot both leave and rejoin' })
  .superRefine((body, ctx) => {
    refineClientSigning(body, ctx);
    refineEncryptedSend(body, ctx);
    refineChatText(body.body, 'body', body, ctx);
  });
export type SendMessageInput = z.output<typeof SendMessageBody>;
export type SendMessageRequest = z.input<typeof SendMessageBody>;

export const MarkReadBody = z.strictObject({ up_to_message_id: z.uuid() });

export const SessionParams = z.object({ session_id: z.string().min(1).max(128) });

const flag = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((value) => value === 'true' || value === '1');

export const HistoryQuery = z.object({
  unread_only: flag,
  limit: z.coerce.number().int().min(1).max(2000).default(200),
  message_id: z.uuid().optional(),
});
export type HistoryInput = z.output<typeof HistoryQuery>;

/** `before`: the previous page's `next_before` (the message_id that ended it). */
export const SessionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_SESSIONS_PAGE).optional(),
  before: z.string().min(1).max(256).optional(),
});
export type SessionsInput = z.output<typeof SessionsQuery>;

/** `deadline` as every stream's (events.ts); `after`, an RFC 3339 time, read as the ISO instant stored times compare with. */
export const StreamQuery = z.object({
  deadline: DeadlineParam,
  after: z
    .string()
    .transform((value, context) => {
      const ms = parseRfc3339(value);
      if (ms === null) context.addIssue({ code: 'custom', message: 'after must be an RFC 3339 timestamp with a timezone', input: value });
      return ms === null ? value : new Date(ms).toISOString();
    })
    .optional(),
});

// ------------------------------------------------------------------ answers

/** A participant as a reader sees it: agent ids only within the reader's own project (as resolve does). */
export const ChatParticipant = z.object({
  agent_id: z.string().nullable(),
  alias: z.string(),
  address: z.string().nullable(),
  /** The did:svc when the identity has one, else its did:key. */
  did: z.string(),
});
export type ChatParticipant = z.output<typeof ChatParticipant>;

/**
 * Ours: a participant with how far it has read and whether it left: what a client rebuilds read
 * receipts and membership from after a reload (the stream only pushes changes).
 */
export const ChatMember = ChatParticipant.extend({
  /** The newest message it has read, or null (nothing yet, or a participant on another node). */
  last_read_message_id: z.string().nullable(),
  read_at: z.string().nullable(),
  /** When it left (its latest message said so); null while it takes part. */
  left_at: z.string().nullable(),
});
export type ChatMember = z.output<typeof ChatMember>;

/** One chat message as a participant reads it (history, the session stream, send-and-wait). */
export const ChatMessage = z.object({
  message_id: z.string(),
  session_id: z.string(),
  /** Null when the sender is in another project (or on another node). */
  from_agent_id: z.string().nullable(),
  from_alias: z.string(),
  from_address: z.string().nullable(),
  from_did: z.string(),
  from_stable_id: z.string().nullable(),
  /** Upstream's name for the sender: its alias (`from_alias`). Send-and-wait clients compare it. */
  from_agent: z.string(),
  to: z.string(),
  /** Upstream's: whom the message was signed to (`to`: the other participants, comma-joined when several). */
  to_address: z.string(),
  to_did: z.string(),
  /** The recipient's did:svc the message was signed to; null when it named none (a group, or a recipient without one). */
  to_stable_id: z.string().nullable(),
  body: z.string(),
  /** The signed timestamp (second precision). */
  timestamp: z.string(),
  /** When the node stored the message (millisecond precision); a stream's `after` compares against it. */
  created_at: z.string(),
  sender_leaving: z.boolean(),
  /** Ours: the sender came back to the chat with this message (sent with `rejoining: true`). */
  sender_rejoining: z.boolean(),
  hang_on: z.boolean(),
  extends_wait_seconds: z.number().int(),
  reply_to: z.string().nullable(),
  wait_seconds: z.number().int().nullable(),
  signature: z.string(),
  signed_payload: z.string(),
  /** The key that signed it (upstream's field: the did:key, equal to `from_did`). */
  signing_key_id: z.string().nullable(),
  /** The reader's contacts name the sender (by address, domain or did). */
  is_contact: z.boolean(),
  /** When the sender's key came from a rotation on this node: the retiring key's signed word for it. */
  rotation_announcement: RotationAnnouncement.nullable(),
  /** When the sender replaced an identity at its address on this node: the namespace controller's signed word for it. */
  replacement_announcement: ReplacementAnnouncement.nullable(),
  /** Ours: the node's check of `signature` over `signed_payload` with `from_did`, at read time. */
  signature_status: SignatureStatus,
  /** Ours: what the sender's address can be trusted as; null without an address. */
  from_namespace_trust: NamespaceTrust.nullable(),
  /**
   * How it was encrypted, as this reader gets it (contract/core/end-to-end.ts): `body` is what the
   * node opened for a reader whose keys it holds, and empty beside the envelope for a reader that
   * opens it itself.
   */
  ...storedEncryptionFields,
});
export type ChatMessage = z.output<typeof ChatMessage>;

/** `POST /v1/chat/sessions`. */
export const StartChatResult = z.object({
  session_id: z.string(),
  message_id: z.string(),
  participants: z.array(ChatParticipant),
  sse_url: z.string(),
  /** The targets (aliases) that have the session's stream open right now. */
  targets_connected: z.array(z.string()),
  /** The targets (aliases) whose latest message said they were leaving. */
  targets_left: z.array(z.string()),
});
export type StartChatResult = z.output<typeof StartChatResult>;

/** `POST /v1/chat/sessions/{id}/messages`. */
export const SendChatResult = z.object({
  message_id: z.string(),
  session_id: z.string(),
  delivered: z.literal(true),
  extends_wait_seconds: z.number().int(),
});
export type SendChatResult = z.output<typeof SendChatResult>;

/** `POST /v1/chat/sessions/{id}/read`: `messages_marked` counts others' messages newly read. */
export const ChatReadMarked = z.object({ success: z.literal(true), messages_marked: z.number().int() });
export type ChatReadMarked = z.output<typeof ChatReadMarked>;

/** Ours: a session's newest message, as the session list shows it. */
export const ChatLastMessage = z.object({
  message_id: z.string(),
  from_agent_id: z.string().nullable(),
  from_alias: z.string(),
  from_address: z.string().nullable(),
  /** The first 200 characters of the body, as the reader reads it (empty for an envelope the reader opens itself). */
  preview: z.string(),
  /** It crossed, and is stored, end-to-end encrypted. */
  end_to_end: z.boolean(),
  created_at: z.string(),
  sender_leaving: z.boolean(),
  sender_rejoining: z.boolean(),
});
export type ChatLastMessage = z.output<typeof ChatLastMessage>;

/** The other participants of a session, in the same order in the three lists. */
const others = {
  /** Their aliases. */
  participants: z.array(z.string()),
  /** Their addresses (an alias where one has none). */
  participant_addresses: z.array(z.string()),
  participant_dids: z.array(z.string()),
};

export const ChatSession = z.object({
  session_id: z.string(),
  ...others,
  created_at: z.string(),
  last_activity: z.string(),
  /** Another participant has the session open right now. */
  sender_waiting: z.boolean(),
  unread_count: z.number().int(),
  /** Ours: the newest message, for the row's preview (null for a session without one). */
  last_message: ChatLastMessage.nullable(),
  /** Ours: the other participants (aliases) whose latest message said they were leaving. */
  participants_left: z.array(z.string()),
  /** Ours: my latest message here said I was leaving. */
  you_left: z.boolean(),
});
export type ChatSession = z.output<typeof ChatSession>;

/** `GET /v1/chat/sessions`: newest activity first; ours: paged with `?limit&before`. */
export const ChatSessionsPage = z.object({
  sessions: z.array(ChatSession),
  has_more: z.boolean(),
  /** Pass as `before` for the next page; null on the last one. */
  next_before: z.string().nullable(),
});
export type ChatSessionsPage = z.output<typeof ChatSessionsPage>;

/** A session with unread messages, or with someone else waiting in it. */
export const PendingChat = z.object({
  session_id: z.string(),
  ...others,
  last_message: z.string().nullable(),
  last_message_id: z.string().nullable(),
  last_from: z.string().nullable(),
  last_from_address: z.string().nullable(),
  last_from_did: z.string().nullable(),
  last_from_stable_id: z.string().nullable(),
  unread_count: z.number().int(),
  last_activity: z.string(),
  sender_waiting: z.boolean(),
  /** Seconds left in the session's wait window; 0 when none is open (as upstream). */
  time_remaining_seconds: z.number().int(),
  /** Upstream's: how the newest message reads for the caller (null without one); with `encrypted_v2` its envelope, and `last_message` empty. */
  last_message_content_mode: ContentMode.nullable(),
  last_message_version: MessageVersion.nullable(),
  last_encrypted_envelope: StoredEnvelope.optional(),
});
export type PendingChat = z.output<typeof PendingChat>;

/** `GET /v1/chat/pending`. */
export const Pending = z.object({
  pending: z.array(PendingChat),
  /** Unread mail. */
  messages_waiting: z.number().int(),
});
export type Pending = z.output<typeof Pending>;

/** `GET /v1/chat/sessions/{id}/messages`: the newest messages, oldest first, and (ours) each participant's state. */
export const ChatHistory = z.object({
  messages: z.array(ChatMessage),
  participants: z.array(ChatMember),
});
export type ChatHistory = z.output<typeof ChatHistory>;

// ------------------------------------------------------------------ the session stream's frames

/**
 * `message`: a new message of the session; `sender_waiting`: its sender has the session's stream
 * open (upstream's). `type` comes first, as the frame is written: a frame leaves as this parses it.
 */
export const ChatMessageFrame = z.object({ type: z.literal('message'), ...ChatMessage.shape, sender_waiting: z.boolean() });
export type ChatMessageFrame = z.output<typeof ChatMessageFrame>;

/** `read_receipt`: another participant read up to a message. */
export const ReadReceipt = z.object({
  type: z.literal('read_receipt'),
  session_id: z.string(),
  reader_alias: z.string(),
  up_to_message_id: z.string(),
  /** What a waiting sender may add to its wait window. */
  extends_wait_seconds: z.number().int(),
  timestamp: z.string(),
});
export type ReadReceipt = z.output<typeof ReadReceipt>;

/** `error`: the stream failed, and closes. */
export { StreamError } from './events.ts';

/** Each frame of a session stream, by its SSE event name: what of a frame may leave (server/http/sse-frames.ts). */
export const ChatSessionFrames = {
  message: ChatMessageFrame,
  read_receipt: ReadReceipt,
  // More session streams than an identity may keep open: the oldest closes with this frame.
  superseded: StreamSuperseded,
  error: StreamError,
  deadline: StreamDeadline,
} as const;
