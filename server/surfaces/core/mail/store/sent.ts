/**
 * The Sent view's reads (ours): what an identity sent, from its two sources, each read
 * newest first from its own index (migration 0019), `limit + 1` rows a page however much was sent.
 *
 * - mail to identities on this node: the `messages` rows it wrote (origin `local`);
 * - mail to other nodes: the federation outbox's mail rows. The outbox owns that table
 *   (federation/outbox-store.ts writes it); this view only reads its mail rows, as the sender's
 *   copy of what it sent there.
 *
 * Order: by the second it was sent, then local before remote within a second (listed newest
 * first, so remote first), then by row id. mail/sent.ts merges the two sources in that order.
 */
import type { StoredEnvelope } from '../../../../../contract/core/end-to-end.ts';
import type { FederatedMail } from '../../../../../contract/core/federation.ts';
import type { SentMail } from '../../../../../contract/core/mail.ts';
import type { Db } from '../../../../context.ts';
import { conversationId } from '../conversation.ts';
import { contentAsReadBy, storedColumns, type MessageRow } from './messages.ts';

/** An item's encryption and content as its sender reads it (messaging/end-to-end.ts, asRead). */
export type SentEncryption = Pick<SentMail, 'end_to_end' | 'content_mode' | 'message_version' | 'encrypted_envelope' | 'subject' | 'body'>;

/** A position in the merged order: the second, local (0) or remote (1), the row id. */
export interface SentKey {
  sec: string;
  rank: 0 | 1;
  id: number;
}

/** A local row with its second and the recipient's project (aliases are project-scoped). */
export type LocalSentRow = MessageRow & { sec: string; to_project: string | null };

/** An outbox mail row, as Sent reads it. */
export interface QueuedSentRow {
  id: number;
  sec: string;
  message_id: string;
  to_address: string;
  /** The signed FederatedMail, as JSON. */
  payload: string;
  status: SentMail['status'];
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  delivered_to: string | null;
  settled_at: string | null;
  /** `encrypted_v2`: sealed end to end as it leaves (its payload is the sender's own copy). */
  content_mode: 'legacy_plaintext_v1' | 'encrypted_v2';
}

/** The expression both Sent indexes are on (migration 0019). */
const SECOND = `substr(created_at, 1, 19)`;

/**
 * The condition on one source for "after the cursor in the list" (older than it): the same source
 * compares second and id; the other source compares seconds only, the rank deciding a tie.
 */
function olderThan(cursor: SentKey | null, rank: 0 | 1): string {
  if (cursor === null) return '';
  // Written so that the first term is a range on the index (SQLite does not range-scan a row value over an expression).
  if (cursor.rank === rank) return `AND ${SECOND} <= @sec AND (${SECOND} < @sec OR id < @id)`;
  // Within the cursor's second, local items (rank 0) come after remote ones (rank 1).
  return rank === 0 ? `AND ${SECOND} <= @sec` : `AND ${SECOND} < @sec`;
}

const pageParams = (agentId: string, cursor: SentKey | null, n: number) => ({ agentId, n, sec: cursor?.sec ?? '', id: cursor?.id ?? 0 });

/** Only one thread's mail: the message with that id and every mail naming it as its thread. */
const IN_THREAD = `AND messages.id IN (SELECT id FROM messages WHERE thread_id = @threadId UNION ALL SELECT id FROM messages WHERE message_id = @threadId)`;

/**
 * What a local send is read as (a `LocalSentRow`), from `LOCAL_ROWS`: the sender's own copy of an
 * encrypted mail (what the node sealed for it, and signed) in place of the row's empty one.
 */
const LOCAL_COLUMNS = `${storedColumns('messages')}, ${contentAsReadBy('messages', 'sender')},
  ${SECOND} AS sec, (SELECT project_id FROM agents a WHERE a.agent_id = messages.to_agent_id) AS to_project`;

/** Local sends, each with what the node kept opened in its row when it reads the mail for its sender. */
const LOCAL_ROWS = `messages`;

/** Up to `n` local sends after `cursor`, newest first; with `threadId`, only that thread's. */
export function localSentRows(db: Db, agentId: string, cursor: SentKey | null, n: number, threadId?: string): LocalSentRow[] {
  return db
    .prepare(
      `SELECT ${LOCAL_COLUMNS}
       FROM ${LOCAL_ROWS} WHERE from_agent_id = @agentId AND origin = 'local' ${olderThan(cursor, 0)} ${threadId === undefined ? '' : IN_THREAD}
       ORDER BY ${SECOND} DESC, id DESC LIMIT +@n`,
    )
    .all({ ...pageParams(agentId, cursor, n), threadId: threadId ?? null }) as LocalSentRow[];
}

/** Only one thread's mail to other nodes: the message with that id and every one naming it (in its payload). */
const QUEUED_IN_THREAD = `AND (message_id = @threadId OR json_extract(payload, '$.thread_id') = @threadId)`;

/** What an outbox mail row is read as (a `QueuedSentRow`). */
const QUEUED_COLUMNS = `id, ${SECOND} AS sec, message_id, to_address, payload, status, attempts, next_attempt_at, last_error, delivered_to, settled_at, content_mode`;

/** Up to `n` sends to other nodes after `cursor`, newest first; with `threadId`, only that thread's. */
export function queuedSentRows(db: Db, agentId: string, cursor: SentKey | null, n: number, threadId?: string): QueuedSentRow[] {
  return db
    .prepare(
      `SELECT ${QUEUED_COLUMNS}
       FROM federation_outbox WHERE from_agent_id = @agentId AND kind = 'mail' ${olderThan(cursor, 1)} ${threadId === undefined ? '' : QUEUED_IN_THREAD}
       ORDER BY ${SECOND} DESC, id DESC LIMIT +@n`,
    )
    .all({ ...pageParams(agentId, cursor, n), threadId: threadId ?? null }) as QueuedSentRow[];
}

/**
 * One message the identity sent, by its id: the local row it wrote, else its outbox mail row;
 * undefined when it sent none by that id (another identity's mail, mail it received, an unknown id).
 * The local row stays the sender's after the recipient deletes its copy.
 */
export function sentRow(db: Db, agentId: string, messageId: string): { local: LocalSentRow } | { queued: QueuedSentRow } | undefined {
  const local = db
    .prepare(`SELECT ${LOCAL_COLUMNS} FROM ${LOCAL_ROWS} WHERE messages.message_id = ? AND from_agent_id = ? AND origin = 'local'`)
    .get(messageId, agentId) as LocalSentRow | undefined;
  if (local !== undefined) return { local };
  const queued = db
    .prepare(`SELECT ${QUEUED_COLUMNS} FROM federation_outbox WHERE message_id = ? AND from_agent_id = ? AND kind = 'mail'`)
    .get(messageId, agentId) as QueuedSentRow | undefined;
  return queued === undefined ? undefined : { queued };
}

/** Where a message the identity sent is in the merged order, or undefined when it sent none by that id. */
export function sentKeyOf(db: Db, agentId: string, messageId: string): SentKey | undefined {
  const local = db
    .prepare(`SELECT ${SECOND} AS sec, id FROM messages WHERE message_id = ? AND from_agent_id = ? AND origin = 'local'`)
    .get(messageId, agentId) as Omit<SentKey, 'rank'> | undefined;
  if (local !== undefined) return { ...local, rank: 0 };
  const remote = db
    .prepare(`SELECT ${SECOND} AS sec, id FROM federation_outbox WHERE message_id = ? AND from_agent_id = ? AND kind = 'mail'`)
    .get(messageId, agentId) as Omit<SentKey, 'rank'> | undefined;
  return remote === undefined ? undefined : { ...remote, rank: 1 };
}

/** The body of mail the identity queued for another node (the sender's copy is the outbox's). */
export function queuedMailBody(db: Db, agentId: string, messageId: string): string | undefined {
  const payload = db
    .prepare(`SELECT payload FROM federation_outbox WHERE message_id = ? AND from_agent_id = ? AND kind = 'mail'`)
    .pluck()
    .get(messageId, agentId) as string | undefined;
  return payload === undefined ? undefined : (JSON.parse(payload) as FederatedMail).body;
}

/** A local send: delivered as it was sent; the alias only within the sender's project; its content as the sender reads it. */
export function toLocalSentItem(row: LocalSentRow, senderProject: string | undefined, asRead: SentEncryption): SentMail {
  return {
    message_id: row.message_id,
    destination: 'local',
    to: row.to_text,
    to_alias: row.to_project !== null && row.to_project === senderProject ? row.to_alias : null,
    to_address: row.to_address,
    to_did: row.to_did,
    to_stable_id: row.to_stable_id,
    priority: row.priority,
    signature: row.signature,
    signed_payload: row.signed_payload,
    thread_id: row.thread_id,
    created_at: row.created_at,
    ...asRead,
    conversation_id: conversationId(row, asRead.encrypted_envelope),
    status: 'delivered',
    attempts: null,
    next_attempt_at: null,
    last_error: null,
    delivered_to: null,
    settled_at: row.created_at,
  };
}

/** A send to another node: its content from the signed payload, its state from the outbox. */
export function toQueuedSentItem(row: QueuedSentRow): SentMail {
  const message = JSON.parse(row.payload) as FederatedMail;
  return {
    message_id: row.message_id,
    destination: 'remote',
    to: row.to_address,
    to_alias: null,
    to_address: row.to_address,
    to_did: null,
    to_stable_id: null,
    subject: message.subject,
    body: message.body,
    priority: message.priority,
    signature: message.signature,
    signed_payload: message.signed_payload,
    // The federation wire carries upstream's thread_id since mail threads were added; mail queued
    // by an older version has none.
    thread_id: message.thread_id ?? null,
    // Sealed as it leaves, to this conversation (the node's reader gets no envelope).
    conversation_id: conversationId({ message_id: row.message_id, thread_id: message.thread_id ?? null }),
    created_at: `${row.sec}Z`,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'queued' ? row.next_attempt_at : null,
    last_error: row.last_error,
    delivered_to: row.delivered_to,
    settled_at: row.settled_at,
    // Sealed as it leaves, or plaintext the send named; either way the sender's own copy, which the
    // node reads for it. Sealed by the sender's client: the envelope alone, which its sender copy opens.
    ...(row.content_mode !== 'encrypted_v2'
      ? { end_to_end: false, content_mode: 'legacy_plaintext_v1' as const, message_version: 1 }
      : message.encrypted_envelope === undefined
        ? { end_to_end: true, content_mode: 'server_readable_hosted' as const, message_version: 2 }
        : {
            end_to_end: true,
            content_mode: 'encrypted_v2' as const,
            message_version: 2,
            // Checked at the send and queued as the crypto core normalised it (E2eeEnvelope), which is this shape.
            encrypted_envelope: message.encrypted_envelope as StoredEnvelope,
          }),
  };
}
