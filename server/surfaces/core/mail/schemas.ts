import { z } from 'zod';

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** Recipients of one mail, over every selector together. */
export const MAX_RECIPIENTS = 50;
/** Mail bodies are measured in UTF-8 bytes. */
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_SUBJECT = 256;

const selector = z.string().min(1).max(256);
const selectors = z.array(selector).max(MAX_RECIPIENTS);

/**
 * Fields of a client-signed send (research/anchor-core.md §10.1). This node holds its identities'
 * keys and signs every mail itself, so they are refused by name rather than as unknown fields.
 */
const CLIENT_SIGNING_FIELDS = ['signature', 'signed_payload', 'signing_key_id', 'from_did', 'message_id', 'timestamp'] as const;

/** The singular selectors, strongest first: when several are given they must name one identity. */
export const SINGLE_SELECTORS = ['to_stable_id', 'to_did', 'to_address', 'to_alias'] as const;
export type SingleSelector = (typeof SINGLE_SELECTORS)[number];

export const SendMailBody = z
  .strictObject({
    to_alias: selector.optional(),
    to_address: selector.optional(),
    to_did: selector.optional(),
    to_stable_id: selector.optional(),
    to_aliases: selectors.optional(),
    to_addresses: selectors.optional(),
    to_dids: selectors.optional(),
    subject: z.string().max(MAX_SUBJECT).default(''),
    body: z.string(),
    priority: z.enum(PRIORITIES).default('normal'),
    // Present only to be refused with a clear message below.
    signature: z.unknown().optional(),
    signed_payload: z.unknown().optional(),
    signing_key_id: z.unknown().optional(),
    from_did: z.unknown().optional(),
    message_id: z.unknown().optional(),
    timestamp: z.unknown().optional(),
  })
  .superRefine((mail, ctx) => {
    for (const field of CLIENT_SIGNING_FIELDS) {
      if (mail[field] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `"${field}" is not accepted: this node signs mail for its identities in custody and mints message_id and timestamp itself`,
        });
      }
    }
    const singles = SINGLE_SELECTORS.some((field) => mail[field] !== undefined) ? 1 : 0;
    const total = singles + (mail.to_aliases?.length ?? 0) + (mail.to_addresses?.length ?? 0) + (mail.to_dids?.length ?? 0);
    if (total === 0) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'Must provide a recipient: to_alias, to_address or to_did (or the lists to_aliases, to_addresses, to_dids)',
      });
    }
    if (total > MAX_RECIPIENTS) {
      ctx.addIssue({ code: 'custom', path: [], message: `At most ${MAX_RECIPIENTS} recipients per mail (got ${total})` });
    }
  });

export type SendMailInput = z.output<typeof SendMailBody>;

const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((value) => value === true || value === 'true' || value === '1');

/**
 * Ours: which of the recipient's folders the inbox lists. `inbox` (the default) is everything
 * neither archived nor deleted; `archive` what the recipient archived. Deleted mail is in neither.
 */
export const MAIL_FOLDERS = ['inbox', 'archive'] as const;
export type MailFolder = (typeof MAIL_FOLDERS)[number];

const limit = z.coerce.number().int().min(1).max(200).default(50);
/** Paging cursor: items older than this message of the list. */
const before = z.string().min(1).max(256).optional();

/** Query parameters not named here are ignored, as upstream does. */
export const InboxQuery = z.object({
  limit,
  unread_only: flag.default(false),
  message_id: z.string().min(1).max(256).optional(),
  before,
  /** Without it, a `message_id` lookup finds the message in either folder; a list is the inbox. */
  folder: z.enum(MAIL_FOLDERS).optional(),
});
export type InboxInput = z.output<typeof InboxQuery>;

/** Ours: `GET /v1/messages/sent`, newest first. */
export const SentQuery = z.object({ limit, before });
export type SentInput = z.output<typeof SentQuery>;

export const MessageIdParams = z.object({ message_id: z.string().min(1).max(256) });
