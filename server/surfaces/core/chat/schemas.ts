/**
 * Chat request shapes (spec §4.4; upstream research/anchor-core.md §10.2). Bodies are strict:
 * an unknown field is a 422, as upstream's extra=forbid.
 */
import { z } from 'zod';
import { alias } from '../identities/schemas.ts';

/** A chat message body: at most 64 KiB of UTF-8 (larger is a 413). */
export const MAX_CHAT_MESSAGE_BYTES = 64 * 1024;
/** How long a send-and-wait may wait. */
export const MAX_WAIT_SECONDS = 3600;
/** Targets of one create-or-send, over all three lists. */
export const MAX_CHAT_TARGETS = 50;

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
};

export const CreateSessionBody = z
  .strictObject({
    to_aliases: uniqueList(alias),
    to_addresses: uniqueList(z.string().min(3).max(320)),
    to_dids: uniqueList(z.string().min(1).max(256)),
    message: z.string().min(1),
    wait_seconds: z.int().min(0).max(MAX_WAIT_SECONDS).optional(),
    ...flags,
  })
  .superRefine((body, ctx) => {
    const count = body.to_aliases.length + body.to_addresses.length + body.to_dids.length;
    if (count === 0) ctx.addIssue({ code: 'custom', path: ['to_aliases'], message: 'at least one of to_aliases, to_addresses or to_dids is required' });
    if (count > MAX_CHAT_TARGETS) ctx.addIssue({ code: 'custom', path: ['to_aliases'], message: `at most ${MAX_CHAT_TARGETS} targets` });
  });
export type CreateSessionInput = z.output<typeof CreateSessionBody>;

/**
 * `rejoining` is ours: the send takes its sender back into a chat it left (any send does, as
 * upstream has it; this one says so, and is refused when there is nothing to rejoin).
 */
export const SendMessageBody = z
  .strictObject({ body: z.string().min(1), ...flags, rejoining: z.boolean().default(false) })
  .refine((body) => !(body.leaving && body.rejoining), { path: ['rejoining'], message: 'a message cannot both leave and rejoin' });
export type SendMessageInput = z.output<typeof SendMessageBody>;

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

/** Sessions per page when the caller pages the list (without `limit`, the whole list, as upstream). */
export const MAX_SESSIONS_PAGE = 500;

/** `before`: the previous page's `next_before` (the message_id that ended it). */
export const SessionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_SESSIONS_PAGE).optional(),
  before: z.string().min(1).max(256).optional(),
});
export type SessionsInput = z.output<typeof SessionsQuery>;

/** `deadline` is checked by streamDeadline; `after` here. */
export const StreamQuery = z.object({
  deadline: z.string().optional(),
  after: z.string().optional(),
});
