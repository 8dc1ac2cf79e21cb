/**
 * Sent (ours, issue 14): every mail the identity sent, newest first, one item per recipient (a
 * send to three people is three items, as it is three signed messages with their own ids and
 * delivery states). Two sources merge here:
 *
 * - mail to identities on this node: the `messages` rows it wrote (origin `local`), always
 *   `delivered`, and kept for the sender even when the recipient archives or deletes its copy;
 * - mail to other nodes: the federation outbox's mail rows, `queued`, `delivered` or `bounced`
 *   with the outbox's attempts, last error and the node that took it.
 *
 * Order and paging: by the second it was sent, then local before remote within a second (listed
 * newest first, so remote first), then by row id. Each source is read in that order from its own
 * index (migration 0019) and only `limit + 1` rows of each are read per page, however much was sent.
 * `before` is the message_id of the last item of the previous page.
 */
import type { NodeContext } from '../../../context.ts';
import { invalid } from '../../../errors.ts';
import type { FederatedMail } from '../../../../contract/core/federation.ts';
import type { SentMail as SentItem, SentInput, SentPage } from '../../../../contract/core/mail.ts';
import type { MessageRow } from './service.ts';

/** A position in the merged order: the second, local (0) or remote (1), the row id. */
interface Key {
  sec: string;
  rank: 0 | 1;
  id: number;
}

type LocalRow = MessageRow & { sec: string; to_project: string | null };

interface OutboxMailRow {
  id: number;
  sec: string;
  message_id: string;
  to_address: string;
  payload: string;
  status: SentItem['status'];
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  delivered_to: string | null;
  settled_at: string | null;
}

/** The expression both Sent indexes are on (migration 0019). */
const SECOND = `substr(created_at, 1, 19)`;

/** Descending order of the merged list. */
const newerFirst = (a: Key, b: Key): number => (a.sec !== b.sec ? (a.sec < b.sec ? 1 : -1) : a.rank !== b.rank ? b.rank - a.rank : b.id - a.id);

/**
 * The condition on one source for "after the cursor in the list" (older than it): the same source
 * compares second and id; the other source compares seconds only, the rank deciding a tie.
 */
function olderThan(cursor: Key | null, rank: 0 | 1): string {
  if (cursor === null) return '';
  // Written so that the first term is a range on the index (SQLite does not range-scan a row value over an expression).
  if (cursor.rank === rank) return `AND ${SECOND} <= @sec AND (${SECOND} < @sec OR id < @id)`;
  // Within the cursor's second, local items (rank 0) come after remote ones (rank 1).
  return rank === 0 ? `AND ${SECOND} <= @sec` : `AND ${SECOND} < @sec`;
}

export class SentMail {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  list(agentId: string, query: SentInput): SentPage {
    const cursor = query.before === undefined ? null : this.#cursor(agentId, query.before);
    const n = query.limit + 1;
    const params = { agentId, n, sec: cursor?.sec ?? '', id: cursor?.id ?? 0 };
    const { db } = this.#ctx;
    const project = db.prepare(`SELECT project_id FROM agents WHERE agent_id = ?`).pluck().get(agentId) as string | undefined;

    const local = db
      .prepare(
        `SELECT *, ${SECOND} AS sec, (SELECT project_id FROM agents a WHERE a.agent_id = messages.to_agent_id) AS to_project
         FROM messages WHERE from_agent_id = @agentId AND origin = 'local' ${olderThan(cursor, 0)}
         ORDER BY ${SECOND} DESC, id DESC LIMIT +@n`,
      )
      .all(params) as LocalRow[];
    const remote = db
      .prepare(
        `SELECT id, ${SECOND} AS sec, message_id, to_address, payload, status, attempts, next_attempt_at, last_error, delivered_to, settled_at
         FROM federation_outbox WHERE from_agent_id = @agentId AND kind = 'mail' ${olderThan(cursor, 1)}
         ORDER BY ${SECOND} DESC, id DESC LIMIT +@n`,
      )
      .all(params) as OutboxMailRow[];

    const merged = [
      ...local.map((row) => ({ key: { sec: row.sec, rank: 0 as const, id: row.id }, item: () => localItem(row, project) })),
      ...remote.map((row) => ({ key: { sec: row.sec, rank: 1 as const, id: row.id }, item: () => remoteItem(row) })),
    ]
      .sort((a, b) => newerFirst(a.key, b.key))
      .slice(0, n);
    const hasMore = merged.length > query.limit;
    const messages = merged.slice(0, query.limit).map((entry) => entry.item());
    return { messages, has_more: hasMore, next_before: hasMore ? (messages.at(-1)?.message_id ?? null) : null };
  }

  #cursor(agentId: string, messageId: string): Key {
    const { db } = this.#ctx;
    const local = db
      .prepare(`SELECT ${SECOND} AS sec, id FROM messages WHERE message_id = ? AND from_agent_id = ? AND origin = 'local'`)
      .get(messageId, agentId) as { sec: string; id: number } | undefined;
    if (local !== undefined) return { ...local, rank: 0 };
    const remote = db
      .prepare(`SELECT ${SECOND} AS sec, id FROM federation_outbox WHERE message_id = ? AND from_agent_id = ? AND kind = 'mail'`)
      .get(messageId, agentId) as { sec: string; id: number } | undefined;
    if (remote !== undefined) return { ...remote, rank: 1 };
    throw invalid([{ loc: ['query', 'before'], msg: `no message ${messageId} in your sent mail`, type: 'value_error' }]);
  }
}

function localItem(row: LocalRow, senderProject: string | undefined): SentItem {
  return {
    message_id: row.message_id,
    destination: 'local',
    to: row.to_text,
    to_alias: row.to_project !== null && row.to_project === senderProject ? row.to_alias : null,
    to_address: row.to_address,
    to_did: row.to_did,
    to_stable_id: row.to_stable_id,
    subject: row.subject,
    body: row.body,
    priority: row.priority,
    signature: row.signature,
    signed_payload: row.signed_payload,
    created_at: row.created_at,
    status: 'delivered',
    attempts: null,
    next_attempt_at: null,
    last_error: null,
    delivered_to: null,
    settled_at: row.created_at,
  };
}

function remoteItem(row: OutboxMailRow): SentItem {
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
    created_at: `${row.sec}Z`,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'queued' ? row.next_attempt_at : null,
    last_error: row.last_error,
    delivered_to: row.delivered_to,
    settled_at: row.settled_at,
  };
}
