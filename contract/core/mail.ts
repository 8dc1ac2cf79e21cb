/**
 * Mail (`/v1/messages`, spec §4.4; bodies as upstream's, docs/adr/0001-upstream-wire-primitives.md;
 * ours: Sent, folders, the rendered body, mail to other nodes): the requests the node validates and
 * the answers it gives, as zod schemas that also describe the API. The node's routes, services and
 * MCP tools and the UI's client take these (the UI their inferred types only, so zod stays out of
 * its bundle).
 */
import { z } from 'zod';
import { MAX_RECIPIENTS, MAX_SUBJECT, PRIORITIES } from '../core-rules.ts';
import { RotationAnnouncement } from './identities.ts';
import { NamespaceTrust, ReplacementAnnouncement } from './namespaces.ts';
import { refineEncryptedSend, sendEncryptionFields, storedEncryptionFields } from './end-to-end.ts';

export { MAX_BODY_BYTES, MAX_RECIPIENTS, MAX_SUBJECT, PRIORITIES } from '../core-rules.ts';

/** Mail per page of the inbox and of Sent: `limit` defaults to this, and may be at most the max. */
export const DEFAULT_MAIL_PAGE = 50;
export const MAX_MAIL_PAGE = 200;

export const Priority = z.enum(PRIORITIES);
export type Priority = z.output<typeof Priority>;

// ------------------------------------------------------------------ requests

const selector = z.string().min(1).max(256);
const selectors = z.array(selector).max(MAX_RECIPIENTS);

/**
 * A client-signed send (docs/adr/0004-custody-model.md,
 * docs/adr/0005-signed-messages-and-federation.md): the client signed the canonical envelope itself
 * and sends `signature` beside the exact `signed_payload` bytes, naming its key in `from_did` (and
 * `signing_key_id`, which must equal it). The node verifies and stores them in place of signing in
 * custody; a self-custodial identity can only send this way.
 */
export const clientSigningFields = {
  signature: z.string().min(1).max(512).optional(),
  signed_payload: z
    .string()
    .min(1)
    .max(256 * 1024)
    .optional(),
  signing_key_id: z.string().max(256).optional(),
  from_did: z.string().min(1).max(256).optional(),
};

/** The rules of a client-signed send, for mail's and chat's bodies (upstream's 422 messages). */
export function refineClientSigning(
  body: {
    signature?: string | undefined;
    signed_payload?: string | undefined;
    signing_key_id?: string | undefined;
    from_did?: string | undefined;
    message_id?: string | undefined;
    timestamp?: string | undefined;
    encrypted_envelope?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  if (body.signature === undefined) {
    // Upstream's clients name themselves beside an envelope they signed (the node checks it is the sender's did:key).
    const unsigned =
      body.encrypted_envelope === undefined ? (['signed_payload', 'signing_key_id', 'from_did'] as const) : (['signed_payload', 'signing_key_id'] as const);
    for (const field of unsigned) {
      if (body[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} goes with signature: send the client signature too, or leave it out` });
    }
    return;
  }
  if (body.from_did === undefined) ctx.addIssue({ code: 'custom', path: ['from_did'], message: 'from_did is required when signature is provided' });
  if (body.message_id === undefined || body.timestamp === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: [body.message_id === undefined ? 'message_id' : 'timestamp'],
      message: 'message_id and timestamp are required when signature is provided',
    });
  }
  if (body.signed_payload === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['signed_payload'],
      message: 'signed_payload is required when signature is provided: the node verifies and stores the exact signed bytes',
    });
  }
}

/** The singular selectors, strongest first (upstream's precedence): when several are given they must name one identity. */
export const SINGLE_SELECTORS = ['to_stable_id', 'to_did', 'to_address', 'to_agent_id', 'to_alias'] as const;

/**
 * A client-chosen message id (a UUID, as upstream): the stored message's id and the send's
 * idempotency key. The same id with the same content again answers what the first send answered,
 * and sends nothing; with other content it is a 409 (`SVC_ERR_MESSAGE_ID_REUSED`).
 */
export const ClientMessageId = z.uuid({ error: 'message_id must be a UUID' });

/**
 * The client's signing time. It counts only beside a client's signature (then it must be second
 * precision, within ±300 s, and becomes the stored time); a send the node signs in custody is
 * stamped by the node's clock, so there it is taken and not used.
 */
export const ClientTimestamp = z.string().max(64);
export type SingleSelector = (typeof SINGLE_SELECTORS)[number];

export const SendMailBody = z
  .strictObject({
    to_alias: selector.optional(),
    to_address: selector.optional(),
    to_did: selector.optional(),
    to_stable_id: selector.optional(),
    /** Upstream's: an identity of this node by its id. */
    to_agent_id: z.uuid({ error: 'to_agent_id must be a UUID' }).optional(),
    to_aliases: selectors.optional(),
    to_addresses: selectors.optional(),
    to_dids: selectors.optional(),
    subject: z.string().max(MAX_SUBJECT).default(''),
    body: z.string(),
    priority: Priority.default('normal'),
    /** Upstream's (E1): the thread the mail belongs to, the id of its first message by convention; every recipient's copy carries it. */
    thread_id: z.uuid({ error: 'thread_id must be a UUID' }).optional(),
    /** Upstream's newer name for `thread_id` (its clients send it beside an envelope, whose own `conversation_id` it is). */
    conversation_id: z.uuid({ error: 'conversation_id must be a UUID' }).optional(),
    message_id: ClientMessageId.optional(),
    timestamp: ClientTimestamp.optional(),
    ...clientSigningFields,
    ...sendEncryptionFields,
  })
  .superRefine((mail, ctx) => {
    refineClientSigning(mail, ctx);
    refineEncryptedSend(mail, ctx);
    if (mail.thread_id !== undefined && mail.conversation_id !== undefined && mail.thread_id !== mail.conversation_id) {
      ctx.addIssue({ code: 'custom', path: ['conversation_id'], message: 'conversation_id and thread_id name the same thread: send one, or the same value' });
    }
    const singles = SINGLE_SELECTORS.some((field) => mail[field] !== undefined) ? 1 : 0;
    const total = singles + (mail.to_aliases?.length ?? 0) + (mail.to_addresses?.length ?? 0) + (mail.to_dids?.length ?? 0);
    if (total === 0) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'Must provide a recipient: to_alias, to_address, to_did or to_agent_id (or the lists to_aliases, to_addresses, to_dids)',
      });
    }
    if (mail.message_id !== undefined && total > 1) {
      ctx.addIssue({ code: 'custom', path: ['message_id'], message: 'message_id names one message: send to one recipient with it' });
    }
    if (total > MAX_RECIPIENTS) {
      ctx.addIssue({ code: 'custom', path: [], message: `At most ${MAX_RECIPIENTS} recipients per mail (got ${total})` });
    }
  });
/** A send as the node takes it (defaults applied). */
export type SendMailInput = z.output<typeof SendMailBody>;
/** A send as a client writes it (subject and priority may be left out). */
export type SendMailRequest = z.input<typeof SendMailBody>;

const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((value) => value === true || value === 'true' || value === '1');

/**
 * Ours: which of the recipient's folders the inbox lists. `inbox` (the default) is everything
 * neither archived nor deleted; `archive` what the recipient archived. Deleted mail is in neither.
 */
export const MAIL_FOLDERS = ['inbox', 'archive'] as const;
export const MailFolder = z.enum(MAIL_FOLDERS);
export type MailFolder = z.output<typeof MailFolder>;

const limit = z.coerce.number().int().min(1).max(MAX_MAIL_PAGE).default(DEFAULT_MAIL_PAGE);
/** Paging cursor: items older than this message of the list. */
const before = z.string().min(1).max(256).optional();

/** Query parameters not named here are ignored, as upstream does. */
export const InboxQuery = z.object({
  limit,
  unread_only: flag.default(false),
  message_id: z.string().min(1).max(256).optional(),
  before,
  /** Without it, a `message_id` lookup finds the message in either folder; a list is the inbox. */
  folder: MailFolder.optional(),
  /** Ours: only this thread's mail (its first message and every mail carrying its id), in either folder unless `folder` says. */
  thread_id: z.string().min(1).max(256).optional(),
});
export type InboxInput = z.output<typeof InboxQuery>;

/** Ours: `GET /v1/messages/sent`, newest first; `thread_id` keeps one thread's mail. */
export const SentQuery = z.object({ limit, before, thread_id: z.string().min(1).max(256).optional() });
export type SentInput = z.output<typeof SentQuery>;

export const MessageIdParams = z.object({ message_id: z.string().min(1).max(256) });

// ------------------------------------------------------------------ answers

/** What the node found checking a message's `signature` over its `signed_payload` with `from_did`. */
export const SignatureStatus = z.enum(['verified', 'unverified', 'failed']);
export type SignatureStatus = z.output<typeof SignatureStatus>;

/** `delivered`: in the recipient's inbox on this node; `queued`: on its way to another node. */
export const SendStatus = z.enum(['delivered', 'queued']);
export type SendStatus = z.output<typeof SendStatus>;

/** One recipient of a send: each gets its own signed message. */
export const Delivery = z.object({
  message_id: z.string(),
  /** The recipient as the sender addressed it. */
  to: z.string(),
  /** The recipient's alias, when it is in the sender's project (aliases are project-scoped). */
  to_alias: z.string().nullable(),
  to_address: z.string().nullable(),
  /** Empty for a recipient on another node (that node checks its key). */
  to_did: z.string(),
  to_stable_id: z.string().nullable(),
  status: SendStatus,
});
export type Delivery = z.output<typeof Delivery>;

/** `POST /v1/messages`. */
export const SendMailResult = z.object({
  /** The first recipient's message (upstream's single-recipient shape); `messages` lists all. */
  message_id: z.string(),
  /** `queued` when the first recipient is on another node. */
  status: SendStatus,
  delivered_at: z.string(),
  messages: z.array(Delivery),
});
export type SendMailResult = z.output<typeof SendMailResult>;

/**
 * Where an inbox mail came from: an identity on this node, another node (checked on arrival), or
 * this node itself telling that a delivery to another node failed.
 */
export const MailOrigin = z.enum(['local', 'remote', 'bounce']);
export type MailOrigin = z.output<typeof MailOrigin>;

/** One mail in an inbox, as the node stored and signed it. */
export const MailMessage = z.object({
  message_id: z.string(),
  /** Null for mail from another node and for bounces. */
  from_agent_id: z.string().nullable(),
  from_alias: z.string(),
  /**
   * How the recipient can name the sender, as upstream (always a string): its address, else its
   * alias in the recipient's project or `<project>~<alias>` from another project of this node
   * (`postmaster` for a bounce). Only a value with a `/` is an address.
   */
  from_address: z.string(),
  /** The did:key the sender signed with. */
  from_did: z.string(),
  from_stable_id: z.string().nullable(),
  to_alias: z.string(),
  to_address: z.string().nullable(),
  to_did: z.string(),
  to_stable_id: z.string().nullable(),
  subject: z.string(),
  body: z.string(),
  priority: Priority,
  signature: z.string(),
  signed_payload: z.string(),
  /** The key that signed it (upstream's field: the did:key, equal to `from_did`); null for an unsigned bounce. */
  signing_key_id: z.string().nullable(),
  /** The thread the sender put it in (`thread_id` of the send); null when it named none. */
  thread_id: z.string().nullable(),
  /**
   * Upstream's: the conversation it belongs to: the envelope's own for an encrypted mail, else its
   * thread, else (the first mail of a conversation) its own id.
   */
  conversation_id: z.string(),
  /** When the sender's key came from a rotation on this node: the retiring key's signed word for it. */
  rotation_announcement: RotationAnnouncement.nullable(),
  /** When the sender replaced an identity at its address on this node: the namespace controller's signed word for it. */
  replacement_announcement: ReplacementAnnouncement.nullable(),
  created_at: z.string(),
  /** When the recipient acknowledged it; null while unread. */
  read_at: z.string().nullable(),
  origin: MailOrigin,
  /** The sending node's origin, for remote mail. */
  from_node: z.string().nullable(),
  /** Ours: when the recipient archived it; null while it is in the inbox. */
  archived_at: z.string().nullable(),
  is_contact: z.boolean(),
  /** Ours: the node's check of the signature, at read time. */
  signature_status: SignatureStatus,
  /** Ours: what the sender's address can be trusted as; null without an address (or for a bounce). */
  from_namespace_trust: NamespaceTrust.nullable(),
  ...storedEncryptionFields,
});
export type MailMessage = z.output<typeof MailMessage>;

/** A page of mail, newest first: `next_before` is what to pass as `before` for the next page (null on the last one). */
const mailPage = <T extends z.ZodType>(item: T) => z.object({ messages: z.array(item), has_more: z.boolean(), next_before: z.string().nullable() });

/** `GET /v1/messages/inbox`. */
export const InboxPage = mailPage(MailMessage);
export type InboxPage = z.output<typeof InboxPage>;

/** `POST /v1/messages/{id}/ack`: acknowledging again keeps the first time. */
export const MailAcknowledged = z.object({ message_id: z.string(), acknowledged_at: z.string() });
export type MailAcknowledged = z.output<typeof MailAcknowledged>;

/** Ours: a mail's delivery to another node, and Sent's state for it. */
export const OutboundStatus = z.enum(['queued', 'delivered', 'bounced']);
export type OutboundStatus = z.output<typeof OutboundStatus>;

/** Ours, `GET /v1/messages/sent` (and one by id, `GET /v1/messages/sent/{message_id}`): one mail this identity sent to one recipient, with its delivery state. */
export const SentMail = z.object({
  message_id: z.string(),
  /** `local`: to an identity on this node; `remote`: to another node, through the outbox. */
  destination: z.enum(['local', 'remote']),
  /** The recipient as the sender addressed it. */
  to: z.string(),
  /** The recipient's alias, when it is in the sender's project (aliases are project-scoped). */
  to_alias: z.string().nullable(),
  to_address: z.string().nullable(),
  /** The recipient's did:key; null for another node's identity (that node checks it). */
  to_did: z.string().nullable(),
  to_stable_id: z.string().nullable(),
  subject: z.string(),
  body: z.string(),
  priority: Priority,
  signature: z.string(),
  signed_payload: z.string(),
  /** The thread it was sent in; null when it named none. */
  thread_id: z.string().nullable(),
  /** Upstream's: the conversation it belongs to (as an inbox item's). */
  conversation_id: z.string(),
  /** When it was sent (second precision). */
  created_at: z.string(),
  status: OutboundStatus,
  /** Delivery attempts to the other node; null for local mail (delivered as it was sent). */
  attempts: z.number().int().nullable(),
  next_attempt_at: z.string().nullable(),
  /** Why the last attempt failed, or why it bounced. */
  last_error: z.string().nullable(),
  /** The origin of the node that took it (remote mail). */
  delivered_to: z.string().nullable(),
  /** When it was delivered or bounced; null while queued. */
  settled_at: z.string().nullable(),
  ...storedEncryptionFields,
});
export type SentMail = z.output<typeof SentMail>;

export const SentPage = mailPage(SentMail);
export type SentPage = z.output<typeof SentPage>;

/** Ours: a message of the caller's inbox after archive, unarchive or mark unread. */
export const MailFolderState = z.object({
  message_id: z.string(),
  /** `archive` when archived; deleted messages are in no folder. */
  folder: MailFolder,
  archived_at: z.string().nullable(),
  read_at: z.string().nullable(),
});
export type MailFolderState = z.output<typeof MailFolderState>;

/** Ours, `DELETE /v1/messages/{id}`: gone from the caller's inbox (the sender's Sent keeps it). */
export const MailDeleted = z.object({ message_id: z.string(), deleted_at: z.string() });
export type MailDeleted = z.output<typeof MailDeleted>;

/** Ours, `GET /v1/messages/{id}/rendered`: the body as sanitised HTML. */
export const RenderedMail = z.object({ message_id: z.string(), body_html: z.string() });
export type RenderedMail = z.output<typeof RenderedMail>;

/** Ours, `GET /v1/messages/outbound`: one mail or chat message of the caller to another node. */
export const OutboundMail = z.object({
  message_id: z.string(),
  /** Mail, or a chat message (its `subject` is then "Chat: " and the start of the message). */
  kind: z.enum(['mail', 'chat']),
  to_address: z.string(),
  to_domain: z.string(),
  status: OutboundStatus,
  attempts: z.number().int(),
  next_attempt_at: z.string(),
  /** Why the last attempt failed (or why it bounced). */
  last_error: z.string().nullable(),
  /** The node that took it. */
  delivered_to: z.string().nullable(),
  created_at: z.string(),
  settled_at: z.string().nullable(),
  subject: z.string(),
});
export type OutboundMail = z.output<typeof OutboundMail>;

export const OutboundList = z.object({ messages: z.array(OutboundMail) });
export type OutboundList = z.output<typeof OutboundList>;
