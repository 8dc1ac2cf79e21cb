/**
 * A client-chosen `message_id` is the send's idempotency key (upstream clients choose it; an agent
 * that retries after a timeout must never send twice). The first send with an id stores the
 * message under it and records what the send said and answered; the same sender sending the same
 * content under the id again gets that answer back and nothing is sent; other content under it is
 * a 409 `SVC_ERR_MESSAGE_ID_REUSED`, and another sender's id a 409 `SVC_ERR_MESSAGE_ID_TAKEN`.
 *
 * "The same content" is everything the request says except when and how it was stamped or signed
 * (`timestamp`, `signature`, `signed_payload`, `signing_key_id`, `from_did`): a retry rebuilt with
 * a fresh timestamp is still the same send. The message tables' unique ids are the guarantee; the
 * recorded answer is kept a week (a retry after that is refused as taken, never sent again).
 */
import type { Db } from '../../../context.ts';
import { canonicalJson } from '../../../crypto/canonical-json.ts';
import { sha256Hex } from '../../../crypto/encoding.ts';
import { conflict } from '../../../errors.ts';
import { findMessageSend, insertMessageSend, pruneMessageSends, type SendKind } from './store/idempotency.ts';

export type { SendKind } from './store/idempotency.ts';

/** How long a first answer is kept for repeats. */
export const SEND_ANSWER_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Old answers forgotten per recorded send (keeps each write's cost bounded). */
const PRUNE_BATCH = 20;

/** Fields that stamp or sign a send rather than say what it sends. */
const NOT_CONTENT = new Set(['message_id', 'timestamp', 'signature', 'signed_payload', 'signing_key_id', 'from_did']);

/** One send with a client message_id: whose, of which kind, and what it says. */
export interface KeyedSend {
  agentId: string;
  messageId: string;
  kind: SendKind;
  contentSha256: string;
}

/** The send `input` (as validated, defaults applied), with `scope` (e.g. the session it goes into) as part of its content. */
export function keyedSend(
  agentId: string,
  kind: SendKind,
  input: { message_id?: string | undefined } & object,
  scope: Record<string, unknown> = {},
): KeyedSend | null {
  if (input.message_id === undefined) return null;
  const content = Object.fromEntries(Object.entries(input as Record<string, unknown>).filter(([key, value]) => !NOT_CONTENT.has(key) && value !== undefined));
  return { agentId, messageId: input.message_id, kind, contentSha256: sha256Hex(canonicalJson({ ...content, ...scope })) };
}

/**
 * The answer of an earlier send of the same content under this id, or undefined when the id is
 * new. Other content under the id, or another sender's id, is refused.
 */
export function earlierAnswer<T>(db: Db, send: KeyedSend): T | undefined {
  const row = findMessageSend(db, send.messageId);
  if (row === undefined) return undefined;
  if (row.agent_id !== send.agentId) throw conflict('SVC_ERR_MESSAGE_ID_TAKEN', `message_id ${send.messageId} is already taken`);
  if (row.kind !== send.kind || row.content_sha256 !== send.contentSha256) {
    throw conflict('SVC_ERR_MESSAGE_ID_REUSED', `message_id ${send.messageId} was already used for another message; choose a new id for new content`);
  }
  return JSON.parse(row.answer) as T;
}

/** Records the answer of a first send; call it inside the send's transaction. */
export function recordAnswer(db: Db, send: KeyedSend, answer: unknown, now: Date): void {
  pruneMessageSends(db, new Date(now.getTime() - SEND_ANSWER_TTL_MS).toISOString(), PRUNE_BATCH);
  insertMessageSend(db, {
    message_id: send.messageId,
    agent_id: send.agentId,
    kind: send.kind,
    content_sha256: send.contentSha256,
    answer: JSON.stringify(answer),
    created_at: now.toISOString(),
  });
}
