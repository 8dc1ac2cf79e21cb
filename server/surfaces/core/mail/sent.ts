/**
 * Sent (ours): every mail the identity sent, newest first, one item per recipient (a
 * send to three people is three items, as it is three signed messages with their own ids and
 * delivery states). Two sources merge here:
 *
 * - mail to identities on this node: the `messages` rows it wrote (origin `local`), always
 *   `delivered`, and kept for the sender even when the recipient archives or deletes its copy;
 * - mail to other nodes: the federation outbox's mail rows, `queued`, `delivered` or `bounced`
 *   with the outbox's attempts, last error and the node that took it.
 *
 * Order and paging: by the second it was sent, then local before remote within a second (listed
 * newest first, so remote first), then by row id. The store reads `limit + 1` rows of each source
 * in that order (store/sent.ts); this merges them. `before` is the message_id of the last item of
 * the previous page. `one` answers a single item by its message_id, however long ago it was sent.
 */
import type { NodeContext } from '../../../context.ts';
import { invalid, notFound } from '../../../errors.ts';
import type { SentInput, SentMail as SentItem, SentPage } from '../../../../contract/core/mail.ts';
import { findIdentity, identityProject } from '../identities/store/agents.ts';
import { asRead } from '../messaging/end-to-end.ts';
import type { AgentRow } from '../identities/store/agents.ts';
import {
  localSentRows,
  queuedSentRows,
  sentKeyOf,
  sentRow,
  toLocalSentItem,
  toQueuedSentItem,
  type LocalSentRow,
  type SentEncryption,
  type SentKey,
} from './store/sent.ts';

/** Descending order of the merged list. */
const newerFirst = (a: SentKey, b: SentKey): number => (a.sec !== b.sec ? (a.sec < b.sec ? 1 : -1) : a.rank !== b.rank ? b.rank - a.rank : b.id - a.id);

export class SentMail {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  list(agentId: string, query: SentInput): SentPage {
    const { db } = this.#ctx;
    const cursor = query.before === undefined ? null : this.#cursor(agentId, query.before);
    const n = query.limit + 1;
    const project = identityProject(db, agentId);
    const sender = findIdentity(db, agentId);
    const queued = queuedSentRows(db, agentId, cursor, n, query.thread_id);
    const merged = [
      ...localSentRows(db, agentId, cursor, n, query.thread_id).map((row) => ({
        key: { sec: row.sec, rank: 0 as const, id: row.id },
        item: () => toLocalSentItem(row, project, this.#asRead(row, sender)),
      })),
      ...queued.map((row) => ({ key: { sec: row.sec, rank: 1 as const, id: row.id }, item: () => toQueuedSentItem(row) })),
    ]
      .sort((a, b) => newerFirst(a.key, b.key))
      .slice(0, n);
    const hasMore = merged.length > query.limit;
    const messages = merged.slice(0, query.limit).map((entry) => entry.item());
    return { messages, has_more: hasMore, next_before: hasMore ? (messages.at(-1)?.message_id ?? null) : null };
  }

  /** The one item the identity sent with this id, from either source; a 404 for anything else (another identity's, received, unknown). */
  one(agentId: string, messageId: string): SentItem {
    const { db } = this.#ctx;
    const row = sentRow(db, agentId, messageId);
    if (row === undefined) throw notFound('SVC_ERR_MESSAGE_NOT_FOUND', 'Message not found');
    return 'local' in row
      ? toLocalSentItem(row.local, identityProject(db, agentId), this.#asRead(row.local, findIdentity(db, agentId)))
      : toQueuedSentItem(row.queued);
  }

  /** A sender that holds its own keys reads its sent mail as the envelope, which its own copy's wrap opens. */
  #asRead(row: LocalSentRow, sender: AgentRow | undefined): SentEncryption {
    return asRead(row, { custody: sender?.custody ?? 'self' });
  }

  #cursor(agentId: string, messageId: string): SentKey {
    const key = sentKeyOf(this.#ctx.db, agentId, messageId);
    if (key === undefined)
      throw invalid('SVC_ERR_VALIDATION', [{ loc: ['query', 'before'], msg: `no message ${messageId} in your sent mail`, type: 'value_error' }]);
    return key;
  }
}
