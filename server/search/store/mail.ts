/** Mail found by a search: the walk down the mail index for one mailbox (or all), and the rows it names. */
import type { Db } from '../../context.ts';
import { beforeClause, newestOfIndex, type TimeFilter, type WalkedRow, type WalkMatch } from './walk.ts';

export interface MailFilter extends TimeFilter {
  /** The identity whose mailbox is searched (received, not deleted; or sent); null: every mailbox (the owner). */
  agentId: string | null;
  from: string | null;
  to: string | null;
  unread: boolean;
}

export interface MailRow {
  id: number;
  message_id: string;
  thread_id: string | null;
  subject: string;
  body: string;
  from_alias: string;
  from_address: string | null;
  to_alias: string;
  to_address: string | null;
  to_agent_id: string;
  from_agent_id: string | null;
  created_at: string;
  read_at: string | null;
  archived_at: string | null;
  deleted_at: string | null;
}

export function mailCandidates(db: Db, match: WalkMatch, filter: MailFilter, window: number): WalkedRow[] {
  return newestOfIndex<WalkedRow>(
    db,
    'search_mail',
    (from) =>
      `SELECT m.id, m.created_at
         FROM ${from} JOIN messages m ON m.id = search_mail.rowid
        WHERE search_mail MATCH @match
          AND (@agent IS NULL OR (m.to_agent_id = @agent AND m.deleted_at IS NULL) OR m.from_agent_id = @agent)
          AND (@agent IS NOT NULL OR m.deleted_at IS NULL OR m.from_agent_id IS NOT NULL)
          AND (@from IS NULL OR m.from_alias = @from OR m.from_address = @from)
          AND (@to IS NULL OR m.to_alias = @to OR m.to_address = @to)
          AND ${beforeClause('m.created_at')}
          AND (@unread = 0 OR (m.read_at IS NULL AND m.deleted_at IS NULL AND (@agent IS NULL OR m.to_agent_id = @agent)))
        ORDER BY search_mail.rowid DESC`,
    match,
    { agent: filter.agentId, from: filter.from, to: filter.to, before: filter.before, unread: filter.unread ? 1 : 0 },
    { after: filter.after, window },
  );
}

/**
 * Whether the node reads a row's encrypted mail for `@viewer`'s side (the owner, null, sees each as
 * its holder's): only then does the row's opened text stand for its subject and body.
 */
const OPENED_FOR_VIEWER = `(m.sender_reads = 1 OR m.recipient_reads = 1)
   AND (@viewer IS NULL OR (m.to_agent_id = @viewer AND m.recipient_reads = 1) OR (m.from_agent_id = @viewer AND m.sender_reads = 1))`;

/**
 * The rows found, by id. An encrypted mail says what the node opened, for a `viewer` only when the
 * node reads that mail for the side the viewer is on; the owner (null) sees each as its holder's.
 */
export function mailRows(db: Db, ids: readonly number[], viewer: string | null): MailRow[] {
  if (ids.length === 0) return [];
  return db
    .prepare(
      `SELECT m.id, m.message_id, m.thread_id, m.from_alias, m.from_address, m.to_alias, m.to_address, m.to_agent_id, m.from_agent_id,
              m.created_at, m.read_at, m.archived_at, m.deleted_at,
              CASE WHEN ${OPENED_FOR_VIEWER} THEN m.opened_subject ELSE m.subject END AS subject,
              CASE WHEN ${OPENED_FOR_VIEWER} THEN m.opened_body ELSE m.body END AS body
         FROM messages m
        WHERE m.id IN (SELECT value FROM json_each(@ids))`,
    )
    .all({ ids: JSON.stringify(ids), viewer }) as MailRow[];
}
