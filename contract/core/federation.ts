/**
 * The messages one node delivers to another (`POST {peer}/v1/federation/messages`, ours: the spec
 * says only that cross-org mail and chat go "through the same endpoints"): mail, and chat
 * messages of a two-party session. Each carries the sender's signature over the envelope of the
 * message-signing rules, made in custody by the sender's node or by a self-custodial client: the
 * node signs `to_did` empty (it addresses the recipient by address and need not know its key),
 * a client may name the recipient's keys. The receiver trusts nothing here it cannot check
 * (server/federation/wire.ts checks that `signed_payload` says what the delivered fields say and
 * that the signature verifies with `from_did`).
 *
 * Fields added later are optional, so a message from an older node still arrives; a node sends
 * them only when they have a value.
 */
import { z } from 'zod';
import { PRIORITIES, utf8Length } from '../core-rules.ts';
import { MAX_BODY_BYTES, MAX_SUBJECT } from './mail.ts';
import { EncryptedEnvelope } from './end-to-end.ts';

export const FEDERATION_VERSION = 1;

const text = (max: number) => z.string().max(max);

/** What mail and chat messages share: who, to whom, when, and the signature over it all. */
const common = {
  v: z.literal(FEDERATION_VERSION),
  message_id: z.string().uuid(),
  /** The sender's address, `<domain>/<name>`. */
  from: text(320),
  from_did: text(128),
  from_stable_id: text(128).nullable(),
  /** The recipient's address on the receiving node. */
  to: text(320),
  body: z.string().refine((value) => utf8Length(value) <= MAX_BODY_BYTES, `must be at most ${MAX_BODY_BYTES} bytes`),
  timestamp: text(64),
  signature: text(256),
  signed_payload: z.string().max(MAX_BODY_BYTES * 2 + 8192),
};

export const FederatedMail = z
  .strictObject({
    ...common,
    kind: z.literal('mail'),
    subject: text(MAX_SUBJECT),
    priority: z.enum(PRIORITIES),
    /**
     * The thread the sender put it in (upstream E1's `thread_id`, outside the signed envelope as
     * upstream's is); absent (or null) when it names none, as from nodes older than the field.
     */
    thread_id: z.uuid({ error: 'thread_id must be a UUID' }).nullable().optional(),
    /**
     * End-to-end encrypted mail (upstream's E2EE v2, beside the fields as upstream's federation
     * carries it): the envelope sealed for the recipient's published key, and subject and body
     * empty; the signature over the other fields still says who sent it to whom. Absent for
     * plaintext, as from nodes older than encryption.
     */
    content_mode: z.literal('encrypted_v2').optional(),
    message_version: z.literal(2).optional(),
    encrypted_envelope: EncryptedEnvelope.optional(),
  })
  .superRefine((mail, ctx) => {
    const parts = [mail.content_mode, mail.message_version, mail.encrypted_envelope].filter((part) => part !== undefined).length;
    if (parts !== 0 && parts !== 3) {
      ctx.addIssue({ code: 'custom', path: ['encrypted_envelope'], message: 'content_mode, message_version and encrypted_envelope come together' });
    }
    if (parts === 3 && (mail.subject !== '' || mail.body !== '')) {
      ctx.addIssue({
        code: 'custom',
        path: [mail.subject !== '' ? 'subject' : 'body'],
        message: 'an encrypted mail carries its subject and body only inside the envelope',
      });
    }
  });
export type FederatedMail = z.output<typeof FederatedMail>;

export const FederatedChat = z
  .strictObject({
    ...common,
    kind: z.literal('chat'),
    reply_to: z.string().uuid().nullable(),
    wait_seconds: z.number().int().min(0).max(86_400).nullable(),
    hang_on: z.boolean(),
    sender_leaving: z.boolean(),
    /**
     * End-to-end encrypted chat, as mail's: the envelope sealed for the recipient's published key
     * (its `conversation_id` the sender's session), and the body empty. Absent for plaintext.
     */
    content_mode: z.literal('encrypted_v2').optional(),
    message_version: z.literal(2).optional(),
    encrypted_envelope: EncryptedEnvelope.optional(),
  })
  .superRefine((chat, ctx) => {
    const parts = [chat.content_mode, chat.message_version, chat.encrypted_envelope].filter((part) => part !== undefined).length;
    if (parts !== 0 && parts !== 3) {
      ctx.addIssue({ code: 'custom', path: ['encrypted_envelope'], message: 'content_mode, message_version and encrypted_envelope come together' });
    }
    if (parts === 3 && chat.body !== '') {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'an encrypted chat message carries its body only inside the envelope' });
    }
  });
export type FederatedChat = z.output<typeof FederatedChat>;

export const FederatedMessage = z.discriminatedUnion('kind', [FederatedMail, FederatedChat]);
export type FederatedMessage = z.output<typeof FederatedMessage>;

/** The receiving node's answer: stored now, or stored before (a retried delivery is harmless). */
export const InboundResult = z.object({ message_id: z.string(), status: z.enum(['delivered', 'duplicate']) });
export type InboundResult = z.output<typeof InboundResult>;

/**
 * `POST {peer}/v1/federation/messages/batch`: many messages in one request, each still signed by
 * its sender and checked on its own. A sending node keeps a batch within both caps; a message
 * larger than the byte cap (at most about 0.8 MiB once JSON-escaped) travels alone. A node older
 * than the route answers 404, and the sender falls back to one message per request.
 */
export const FEDERATION_BATCH_MAX_MESSAGES = 64;
/** The summed JSON size of a batch's messages, well under the 2 MiB request body cap. */
export const FEDERATION_BATCH_MAX_BYTES = 1024 * 1024;

export const FederationBatch = z.strictObject({
  v: z.literal(FEDERATION_VERSION),
  /** Each is parsed as a FederatedMessage on its own, so one malformed message is refused alone. */
  messages: z.array(z.unknown()).min(1).max(FEDERATION_BATCH_MAX_MESSAGES),
});
export type FederationBatch = z.output<typeof FederationBatch>;

/** The longest refusal detail a batch result carries (the sender shows at most 300 characters). */
export const BATCH_DETAIL_MAX_CHARS = 500;

/**
 * What became of one message of a batch, in the order they were sent:
 * - `delivered` / `duplicate`: stored now, or before (as InboundResult);
 * - `refused`: never will be (the single route's 4xx): the sender bounces it with `detail`;
 * - `deferred`: not now (the sender's node could not be asked, a budget is spent, or an earlier
 *   message from the same sender to the same recipient was deferred, which keeps their order):
 *   the sender retries it, not before `retry_after` seconds when given.
 */
export const BatchItemResult = z.object({
  /** Null when the item was not a message with a readable message_id. */
  message_id: z.string().max(64).nullable(),
  status: z.enum(['delivered', 'duplicate', 'refused', 'deferred']),
  code: z.string().max(64).optional(),
  detail: z.string().max(BATCH_DETAIL_MAX_CHARS).optional(),
  retry_after: z.number().int().min(0).max(3600).optional(),
});
export type BatchItemResult = z.output<typeof BatchItemResult>;

export const FederationBatchResult = z.object({ results: z.array(BatchItemResult).max(FEDERATION_BATCH_MAX_MESSAGES) });
export type FederationBatchResult = z.output<typeof FederationBatchResult>;
