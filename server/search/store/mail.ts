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

export function mailRows(db: Db, ids: readonly number[]): MailRow[] {
  if (ids.length === 0) return [];
  return db
    .prepare(
      `SELECT id, message_id, thread_id, from_alias, from_address, to_alias, to_address, to_agent_id, from_agent_id,
              created_at, read_at, archived_at, deleted_at,
              -- An encrypted mail says what the node opened for its readers (the search was scoped to them).
              coalesce((SELECT p.subject FROM mail_plaintext p WHERE p.message_id = messages.message_id LIMIT 1), subject) AS subject,
              coalesce((SELECT p.body FROM mail_plaintext p WHERE p.message_id = messages.message_id LIMIT 1), body) AS body
         FROM messages WHERE id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(ids)) as MailRow[];
}
