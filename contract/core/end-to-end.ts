/**
 * End-to-end encrypted messages on the wire (upstream's E2EE v2; the node's reading is
 * docs/design/e2ee-v2-wire.md, the node's choices docs/adr/0008-end-to-end-mail.md): the content
 * modes a message is sent and read in, and the envelope a client that holds its own keys posts.
 *
 * The envelope is checked here only for size and counts, so that a hostile one costs little; its
 * meaning (fields, hashes, signature, freshness) is the crypto core's (server/crypto/e2ee/), which
 * refuses each fault with a category of its own.
 */
import { z } from 'zod';
import { MAX_RECIPIENTS, utf8Length } from '../core-rules.ts';
import { EncryptionKeyAssertion } from './encryption-keys.ts';

/**
 * `legacy_plaintext_v1`: subject and body as sent, readable by the nodes it crosses.
 * `encrypted_v2`: an envelope only its recipients (and its sender's own copy) can open.
 * `server_readable_hosted`: upstream's name for an answer the node opened for its reader, an
 * identity whose keys the node holds (the node is that identity's client); the mail itself crossed
 * and is stored encrypted (`end_to_end` says so).
 */
export const CONTENT_MODES = ['legacy_plaintext_v1', 'encrypted_v2', 'server_readable_hosted'] as const;
export const ContentMode = z.enum(CONTENT_MODES);
export type ContentMode = z.output<typeof ContentMode>;

/** What a send may ask for: encryption (the default where both ends have keys), or plaintext by name. */
export const SendContentMode = z.enum(['legacy_plaintext_v1', 'encrypted_v2']);
export type SendContentMode = z.output<typeof SendContentMode>;

/** Upstream's `message_version`: 1 for plaintext, 2 for an envelope. */
export const MessageVersion = z.number().int().min(1).max(2);

/**
 * An envelope's serialized size cap: a 64 KiB body grows by a third in base64, plus a key wrap
 * (about 700 bytes) per recipient and the sender's copy.
 */
export const MAX_ENVELOPE_BYTES = 192 * 1024;

/** A client's envelope, bounded before anything reads it: its size, and how many recipients and wraps it lists. */
export const EncryptedEnvelope = z
  .looseObject({
    recipients: z.array(z.unknown()).max(MAX_RECIPIENTS, `an envelope lists at most ${MAX_RECIPIENTS} recipients`).optional(),
    key_wraps: z
      .array(z.unknown())
      .max(MAX_RECIPIENTS + 1, `an envelope carries at most ${MAX_RECIPIENTS + 1} key wraps`)
      .optional(),
  })
  .refine((envelope) => utf8Length(JSON.stringify(envelope)) <= MAX_ENVELOPE_BYTES, `must be at most ${MAX_ENVELOPE_BYTES} bytes as JSON`);
export type EncryptedEnvelope = z.output<typeof EncryptedEnvelope>;

/** The fields a send and a stored message carry about their encryption (upstream's names). */
export const sendEncryptionFields = {
  /** Leave it out to encrypt wherever the recipient publishes a key; `legacy_plaintext_v1` sends plaintext by name. */
  content_mode: SendContentMode.optional(),
  message_version: MessageVersion.optional(),
  /** A client that holds its own keys posts the envelope it made (then subject and body are empty). */
  encrypted_envelope: EncryptedEnvelope.optional(),
};

/**
 * A send's encryption fields agree with each other: an envelope is `encrypted_v2` (upstream's
 * `message_version` 2) with empty subject and body, as upstream's clients send it. Without an
 * envelope, `encrypted_v2` asks the node to encrypt (it holds the sender's keys), and
 * `legacy_plaintext_v1` asks for plaintext by name.
 */
export function refineEncryptedSend(
  body: { content_mode?: SendContentMode | undefined; message_version?: number | undefined; encrypted_envelope?: unknown; subject?: string; body?: string },
  ctx: z.RefinementCtx,
): void {
  const enveloped = body.encrypted_envelope !== undefined;
  if (enveloped && body.content_mode === 'legacy_plaintext_v1') {
    ctx.addIssue({ code: 'custom', path: ['content_mode'], message: 'an encrypted_envelope is content_mode encrypted_v2' });
  }
  if (body.message_version === 2 && body.content_mode === 'legacy_plaintext_v1') {
    ctx.addIssue({ code: 'custom', path: ['message_version'], message: 'plaintext is message_version 1' });
  }
  if (body.message_version === 1 && (enveloped || body.content_mode === 'encrypted_v2')) {
    ctx.addIssue({ code: 'custom', path: ['message_version'], message: 'encrypted_v2 is message_version 2' });
  }
  if (enveloped && ((body.subject ?? '') !== '' || (body.body ?? '') !== '')) {
    ctx.addIssue({
      code: 'custom',
      path: [(body.subject ?? '') !== '' ? 'subject' : 'body'],
      message: 'with an encrypted_envelope, subject and body are empty: the content is inside it',
    });
  }
}

const ref = {
  address: z.string().optional(),
  did: z.string(),
  stable_id: z.string().optional(),
  team_id: z.string().optional(),
};

/**
 * An envelope as the node serves it: the normalised form the crypto core read it into
 * (server/crypto/e2ee/envelope.ts, E2eeEnvelope), every field named, so an answer carries exactly
 * the bytes its signature covers and nothing else.
 */
export const StoredEnvelope = z.object({
  message_version: z.number().int(),
  envelope_type: z.string(),
  kind: z.enum(['mail', 'chat']),
  message_id: z.string(),
  conversation_id: z.string(),
  reply_to_message_id: z.string().optional(),
  created_at: z.string(),
  expires_at: z.string(),
  from: z.object({ ...ref, encryption_key_id: z.string() }),
  sender_encryption_key: EncryptionKeyAssertion.optional(),
  recipients: z.array(z.object({ ...ref, encryption_key_id: z.string(), wrap_id: z.string() })),
  routing: z.object({
    to: z.string().optional(),
    to_did: z.string().optional(),
    to_stable_id: z.string().optional(),
    delivery_origin: z.string().optional(),
    sender_observed_inbound_mode: z.string().optional(),
  }),
  policy: z.object({ requires_e2ee: z.boolean(), legacy_plaintext_allowed: z.boolean() }),
  crypto: z.object({
    suite: z.string(),
    content_nonce: z.string(),
    ciphertext_hash: z.string(),
    ciphertext_size: z.number().int(),
    inner_header_hash: z.string(),
    key_wraps_hash: z.string(),
  }),
  key_wraps: z.array(
    z.object({
      wrap_id: z.string(),
      recipient_stable_id: z.string().optional(),
      recipient_did: z.string().optional(),
      recipient_address: z.string().optional(),
      recipient_encryption_key_id: z.string(),
      sender_encryption_key_id: z.string(),
      sender_did: z.string(),
      sender_stable_id: z.string().optional(),
      wrap_purpose: z.enum(['delivery', 'sender_copy']),
      algorithm: z.string(),
      encapsulated_key: z.string(),
      wrapped_cek: z.string(),
    }),
  ),
  ciphertext: z.string(),
  signature: z.string(),
  signing_key_id: z.string(),
});
export type StoredEnvelope = z.output<typeof StoredEnvelope>;

/**
 * What a stored message says about its encryption, as its reader gets it.
 * - `end_to_end`: it crossed, and is stored, as an envelope only its parties can open.
 * - `content_mode`: what the reader's client does with it: `encrypted_v2` when the answer carries
 *   the envelope for a client that holds its own keys to open (subject and body are then empty);
 *   `server_readable_hosted` when the node opened it for its reader; `legacy_plaintext_v1` for
 *   plaintext.
 * - `encrypted_envelope`: only for a reader that opens it itself.
 */
export const storedEncryptionFields = {
  end_to_end: z.boolean(),
  content_mode: ContentMode,
  message_version: MessageVersion,
  encrypted_envelope: StoredEnvelope.optional(),
};
