/** Chat messages found by a search: the walk down the chat index, the rows it names, and whose sessions may be searched. */
import type { Db } from '../../context.ts';
import { beforeClause, newestOfIndex, type TimeFilter, type WalkedRow, type WalkMatch } from './walk.ts';

export interface ChatFilter extends TimeFilter {
  from: string | null;
}

export interface ChatRow {
  id: number;
  message_id: string;
  session_id: string;
  body: string;
  from_alias: string;
  from_address: string | null;
  from_remote_address: string | null;
  from_agent_id: string | null;
  created_at: string;
  /** An identity of this node in the session (the sender when it is one). */
  local_agent_id: string | null;
}

export function chatCandidates(db: Db, match: WalkMatch, filter: ChatFilter, window: number): WalkedRow[] {
  return newestOfIndex<WalkedRow>(
    db,
    'search_chat',
    (from) =>
      `SELECT c.id, c.created_at
         FROM ${from} JOIN chat_messages c ON c.id = search_chat.rowid
        WHERE search_chat MATCH @match
          AND (@from IS NULL OR c.from_alias = @from OR c.from_address = @from OR c.from_remote_address = @from)
          AND ${beforeClause('c.created_at')}
        ORDER BY search_chat.rowid DESC`,
    match,
    { from: filter.from, before: filter.before },
    { after: filter.after, window },
  );
}

export function chatRows(db: Db, ids: readonly number[]): ChatRow[] {
  if (ids.length === 0) return [];
  return db
    .prepare(
      `SELECT c.id, c.message_id, c.session_id,
              -- An encrypted message says what the node opened for its readers (the search was scoped to them).
              coalesce((SELECT p.body FROM chat_plaintext p WHERE p.message_id = c.message_id ORDER BY p.id LIMIT 1), c.body) AS body, c.from_alias, c.from_address, c.from_remote_address, c.from_agent_id, c.created_at,
              coalesce(c.from_agent_id, (SELECT p.agent_id FROM chat_participants p WHERE p.session_id = c.session_id AND p.agent_id IS NOT NULL ORDER BY p.rowid LIMIT 1)) AS local_agent_id
         FROM chat_messages c WHERE c.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(ids)) as ChatRow[];
}

/** The chat sessions an identity is in: what its chat reads show, so what its search may. */
export function sessionsOf(db: Db, agentId: string): string[] {
  return db.prepare(`SELECT session_id FROM chat_participants WHERE agent_id = ?`).pluck().all(agentId) as string[];
}
