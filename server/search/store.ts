/**
 * The search indexes (migration 0029): the only module that queries them. Each `*Candidates`
 * query takes a MATCH expression already made safe (query.ts; the scope part from scope.ts) and
 * returns the most recent matching rows, up to `window`: FTS5 walks its index newest first and
 * stops at the window, so a word in half a million rows costs a window's worth of work, not the
 * half million. Mail and chat candidates come without relevance (scoring.ts weighs them from
 * their text, read here); documents and profiles, small indexes, with FTS5's bm25.
 */
import type { Db } from '../context.ts';
import { RECENT_SCHEMA } from './pending-store.ts';

/** Filters every kind may apply (null: not asked). */
export interface TimeFilter {
  after: string | null;
  before: string | null;
}

export interface MailFilter extends TimeFilter {
  /** The identity whose mailbox is searched (received, not deleted; or sent); null: every mailbox (the owner). */
  agentId: string | null;
  from: string | null;
  to: string | null;
  unread: boolean;
}

/** A mail or chat row a walk down the index found: relevance is weighed later, from its text (scoring.ts). */
export interface WalkedRow {
  id: number;
  created_at: string;
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

// bm25 weights per column of the small indexes: scope never scores; a title word counts most.
const TITLED_WEIGHTS = '0.0, 4.0, 1.0';

const timeClause = (column: string) => `(@after IS NULL OR ${column} >= @after) AND (@before IS NULL OR ${column} < @before)`;
/** Mail and chat check `after` as they walk (newestDownTo). */
const beforeClause = (column: string) => `(@before IS NULL OR ${column} < @before)`;

/** The lowest row id written at or after `after`: a row of that time or later has an id at least this (ids are not in time order, so min). */
function lowestIdSince(db: Db, table: 'messages' | 'chat_messages', after: string | null): number {
  if (after === null) return 0;
  // Through the time index (migration 0030): left to itself, SQLite walks the ids up from the first.
  return (db.prepare(`SELECT min(id) FROM ${table} INDEXED BY ${table}_created WHERE created_at >= ?`).pluck().get(after) as number | null) ?? Number.MAX_SAFE_INTEGER;
}

/**
 * The newest `window` rows of a walk down the index written at or after `after`. `lowest` (from
 * lowestIdSince) ends the walk: the bound is kept out of FTS5 on purpose, because given a rowid
 * range FTS5 seeks every phrase of an AND to it and runs about fifteen times slower than walking
 * down and stopping here. So `after` is checked here too, not in SQL: a row SQL left out would
 * never reach the check, and the walk would go on to the oldest row.
 */
function newestDownTo<T extends { id: number; created_at: string }>(rows: Iterable<T>, after: string | null, lowest: number, window: number): T[] {
  const out: T[] = [];
  for (const row of rows) {
    if (row.id < lowest || out.length >= window) break;
    if (after === null || row.created_at >= after) out.push(row);
  }
  return out;
}

/**
 * Two walks newest first as one: the rows not yet indexed (pending-store.ts; a few, read whole)
 * and the index's, lazily. Noted rows are the newest almost always, but the merge does not count on it.
 */
function* newestOfBoth<T extends { id: number }>(recent: readonly T[], indexed: IterableIterator<T>): Generator<T> {
  let r = 0;
  for (const row of indexed) {
    while (r < recent.length && recent[r]!.id > row.id) yield recent[r++]!;
    yield row;
  }
  while (r < recent.length) yield recent[r++]!;
}

/**
 * What a mail or chat walk matches: `indexed` in the index (a prefix may be named by the words the
 * index holds, query.ts), `recent` in the in-memory index of rows not yet in it, whose words the
 * index's list does not hold.
 */
export interface WalkMatch {
  indexed: string;
  recent: string;
}

/**
 * Runs `sql` over the index and over the in-memory index of rows not yet in it (`FROM ${from}`,
 * `@match`), newest first, down to the first `window` rows written at or after `after`.
 */
function newestOfIndex<T extends { id: number; created_at: string }>(
  db: Db,
  index: 'search_mail' | 'search_chat',
  sql: (from: string) => string,
  match: WalkMatch,
  params: Record<string, unknown>,
  bounds: { after: string | null; window: number },
): T[] {
  // Before the walk starts: the connection runs one statement at a time.
  const lowest = lowestIdSince(db, index === 'search_mail' ? 'messages' : 'chat_messages', bounds.after);
  const recent = db.prepare(sql(`${RECENT_SCHEMA}.${index} AS ${index}`)).all({ ...params, match: match.recent }) as T[];
  const indexed = db.prepare(sql(`main.${index} AS ${index}`)).iterate({ ...params, match: match.indexed }) as IterableIterator<T>;
  return newestDownTo(newestOfBoth(recent, indexed), bounds.after, lowest, bounds.window);
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

/** A row of a mail or chat index's view (migration 0029): its id and the named text columns. */
export type IndexedText = { id: number } & Record<string, string>;

/** What `index` holds of each of `ids` (its view, `<index>_rows`), in the `columns` the code names, for weighing them. */
export function indexedTexts(db: Db, index: 'search_mail' | 'search_chat', columns: readonly string[], ids: readonly number[]): IndexedText[] {
  if (ids.length === 0) return [];
  return db.prepare(`SELECT id, ${columns.join(', ')} FROM ${index}_rows WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as IndexedText[];
}

/** The same of the newest `n` rows of `index`, whatever they are: a sample of the index. */
export function newestTexts(db: Db, index: 'search_mail' | 'search_chat', columns: readonly string[], n: number): IndexedText[] {
  return db.prepare(`SELECT id, ${columns.join(', ')} FROM ${index}_rows ORDER BY id DESC LIMIT +?`).all(n) as IndexedText[];
}

/**
 * The words of `index` that start with `prefix` (folded as the index folds plain ASCII: lower
 * case), at most `limit`; null when there are more (FTS5's own prefix merge is then no worse).
 */
export function wordsStartingWith(db: Db, index: 'search_mail' | 'search_chat', prefix: string, limit: number): string[] | null {
  const words = db
    .prepare(`SELECT term FROM ${index}_terms WHERE term >= @prefix AND term < @prefix || char(1114111) LIMIT +@n`)
    .pluck()
    .all({ prefix, n: limit + 1 }) as string[];
  return words.length > limit ? null : words;
}

/** The ids `table`'s rows span: about how many rows its index holds (ids are dense: rows are deleted rarely). */
export function idSpan(db: Db, table: 'messages' | 'chat_messages'): { lowest: number; highest: number } | null {
  // Two subqueries: SQLite reads a lone min() or max() off the end of the key, both at once by a full scan.
  const row = db.prepare(`SELECT (SELECT min(id) FROM ${table}) AS lowest, (SELECT max(id) FROM ${table}) AS highest`).get() as { lowest: number | null; highest: number | null };
  return row.lowest === null || row.highest === null ? null : { lowest: row.lowest, highest: row.highest };
}

/** The ids of the newest `n` rows of `index` matching `match` (no scope: how common a phrase is). */
export function newestMatches(db: Db, index: 'search_mail' | 'search_chat', match: string, n: number): number[] {
  return db.prepare(`SELECT rowid FROM ${index} WHERE ${index} MATCH ? ORDER BY rowid DESC LIMIT +?`).pluck().all(match, n) as number[];
}

export function mailRows(db: Db, ids: readonly number[]): MailRow[] {
  if (ids.length === 0) return [];
  return db
    .prepare(
      `SELECT id, message_id, thread_id, subject, body, from_alias, from_address, to_alias, to_address, to_agent_id, from_agent_id,
              created_at, read_at, archived_at, deleted_at
         FROM messages WHERE id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(ids)) as MailRow[];
}

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
      `SELECT c.id, c.message_id, c.session_id, c.body, c.from_alias, c.from_address, c.from_remote_address, c.from_agent_id, c.created_at,
              coalesce(c.from_agent_id, (SELECT p.agent_id FROM chat_participants p WHERE p.session_id = c.session_id AND p.agent_id IS NOT NULL ORDER BY p.rowid LIMIT 1)) AS local_agent_id
         FROM chat_messages c WHERE c.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(ids)) as ChatRow[];
}

/** The chat sessions an identity is in: what its chat reads show, so what its search may. */
export function sessionsOf(db: Db, agentId: string): string[] {
  return db.prepare(`SELECT session_id FROM chat_participants WHERE agent_id = ?`).pluck().all(agentId) as string[];
}

export interface DocumentCandidate {
  entry_id: number;
  score: number;
  created_at: string;
  document_id: string;
  version_number: number;
  current_version: number;
}

export interface DocumentMeta {
  document_id: string;
  team_id: string;
  slug: string;
  title: string;
}

export function documentCandidates(db: Db, match: string, filter: TimeFilter, window: number): DocumentCandidate[] {
  return db
    .prepare(
      `SELECT e.entry_id, bm25(search_documents, ${TITLED_WEIGHTS}) AS score, e.created_at, e.document_id, e.version_number, d.current_version
         FROM search_documents
         JOIN search_document_versions e ON e.entry_id = search_documents.rowid
         JOIN documents d ON d.document_id = e.document_id
        WHERE search_documents MATCH @match AND ${timeClause('e.created_at')}
        ORDER BY search_documents.rowid DESC
        LIMIT +@window`,
    )
    .all({ match, after: filter.after, before: filter.before, window }) as DocumentCandidate[];
}

export function documentMeta(db: Db, documentIds: readonly string[]): DocumentMeta[] {
  if (documentIds.length === 0) return [];
  return db
    .prepare(`SELECT document_id, team_id, slug, title FROM documents WHERE document_id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(documentIds)) as DocumentMeta[];
}

/** Indexes one version of a document (replacing what was indexed for it). */
export function indexDocumentVersion(db: Db, entry: { documentId: string; version: number; createdAt: string; scope: string; title: string; body: string }): void {
  const entryId = db
    .prepare(
      `INSERT INTO search_document_versions (document_id, version_number, created_at) VALUES (?, ?, ?)
       ON CONFLICT (document_id, version_number) DO UPDATE SET created_at = excluded.created_at
       RETURNING entry_id`,
    )
    .pluck()
    .get(entry.documentId, entry.version, entry.createdAt) as number;
  db.prepare(`INSERT OR REPLACE INTO search_documents (rowid, scope, title, body) VALUES (?, ?, ?, ?)`).run(entryId, entry.scope, entry.title, entry.body);
}

export interface LibraryCandidate {
  entry_id: number;
  score: number;
  kind: 'profile' | 'blueprint';
  team_id: string;
  ref: string;
}

export interface LibraryRow {
  id: number;
  title: string;
  body: string;
  created_at: string;
}

export function libraryCandidates(db: Db, match: string, kinds: { profiles: boolean; blueprints: boolean }, window: number): LibraryCandidate[] {
  return db
    .prepare(
      `SELECT i.entry_id, bm25(search_library, ${TITLED_WEIGHTS}) AS score, i.kind, i.team_id, i.ref
         FROM search_library JOIN search_library_items i ON i.entry_id = search_library.rowid
        WHERE search_library MATCH @match AND ((@profiles = 1 AND i.kind = 'profile') OR (@blueprints = 1 AND i.kind = 'blueprint'))
        ORDER BY search_library.rowid DESC
        LIMIT +@window`,
    )
    .all({ match, profiles: kinds.profiles ? 1 : 0, blueprints: kinds.blueprints ? 1 : 0, window }) as LibraryCandidate[];
}

/** When each profile's or blueprint's latest version was written (its text is not read). */
export function libraryTimes(db: Db, ids: readonly number[]): Array<{ id: number; created_at: string }> {
  if (ids.length === 0) return [];
  const list = JSON.stringify(ids);
  return db
    .prepare(
      `SELECT id, created_at FROM search_profile_rows WHERE id IN (SELECT value FROM json_each(@list))
       UNION ALL
       SELECT id, created_at FROM search_blueprint_rows WHERE id IN (SELECT value FROM json_each(@list))`,
    )
    .all({ list }) as Array<{ id: number; created_at: string }>;
}

export function libraryRows(db: Db, ids: readonly number[]): LibraryRow[] {
  if (ids.length === 0) return [];
  const list = JSON.stringify(ids);
  return db
    .prepare(
      `SELECT id, title, body, created_at FROM search_profile_rows WHERE id IN (SELECT value FROM json_each(@list))
       UNION ALL
       SELECT id, title, body, created_at FROM search_blueprint_rows WHERE id IN (SELECT value FROM json_each(@list))`,
    )
    .all({ list }) as LibraryRow[];
}

export interface BackfillRow {
  kind: 'mail' | 'chat' | 'document' | 'library';
  through: string;
  end_id: string;
  done: number;
  total: number;
}

export function backfillRows(db: Db): BackfillRow[] {
  return db.prepare(`SELECT kind, through, end_id, done, total FROM search_backfill ORDER BY kind`).all() as BackfillRow[];
}

/** Indexes the next batch of older mail, chat or library rows from their view; the cursor moves in the same transaction. */
export function backfillRowsBatch(db: Db, kind: 'mail' | 'chat' | 'library', batch: number): number {
  const state = db.prepare(`SELECT through, end_id FROM search_backfill WHERE kind = ?`).get(kind) as { through: string; end_id: string };
  const from = Number(state.through);
  const end = Number(state.end_id);
  if (from >= end) return 0;
  const insert = {
    mail: `INSERT OR REPLACE INTO search_mail (rowid, scope, subject, body, people)
           SELECT id, scope, subject, body, people FROM search_mail_rows WHERE id > @from AND id <= @end ORDER BY id LIMIT +@batch`,
    chat: `INSERT OR REPLACE INTO search_chat (rowid, scope, body, people)
           SELECT id, scope, body, people FROM search_chat_rows WHERE id > @from AND id <= @end ORDER BY id LIMIT +@batch`,
    library: `INSERT OR REPLACE INTO search_library (rowid, scope, title, body)
              SELECT id, scope, title, body FROM (SELECT id, scope, title, body FROM search_profile_rows UNION ALL SELECT id, scope, title, body FROM search_blueprint_rows)
               WHERE id > @from AND id <= @end ORDER BY id LIMIT +@batch`,
  }[kind];
  const source = { mail: 'messages', chat: 'chat_messages', library: 'search_library_items' }[kind];
  const idColumn = kind === 'library' ? 'entry_id' : 'id';
  // The batch's last id from the source itself: rows the view leaves out (a profile with no version yet) still move the cursor.
  const last = db
    .prepare(`SELECT max(${idColumn}) FROM (SELECT ${idColumn} FROM ${source} WHERE ${idColumn} > ? AND ${idColumn} <= ? ORDER BY ${idColumn} LIMIT +?)`)
    .pluck()
    .get(from, end, batch) as number | null;
  const moved = db.prepare(`SELECT count(*) FROM ${source} WHERE ${idColumn} > ? AND ${idColumn} <= ?`).pluck().get(from, last ?? end) as number;
  db.prepare(insert).run({ from, end: last ?? end, batch });
  db.prepare(`UPDATE search_backfill SET through = ?, done = min(total, done + ?) WHERE kind = ?`).run(String(last ?? end), moved, kind);
  return moved;
}

/** The documents after `through`, up to the backfill's end, in id order. */
export function documentsToBackfill(db: Db, batch: number): Array<{ document_id: string; team_id: string; title: string; slug: string; current_version: number }> {
  const state = db.prepare(`SELECT through, end_id FROM search_backfill WHERE kind = 'document'`).get() as { through: string; end_id: string };
  return db
    .prepare(`SELECT document_id, team_id, title, slug, current_version FROM documents WHERE document_id > ? AND document_id <= ? ORDER BY document_id LIMIT +?`)
    .all(state.through, state.end_id, batch) as Array<{ document_id: string; team_id: string; title: string; slug: string; current_version: number }>;
}

export function markDocumentsBackfilled(db: Db, through: string, count: number): void {
  db.prepare(`UPDATE search_backfill SET through = ?, done = min(total, done + ?) WHERE kind = 'document'`).run(through, count);
}

/** Backfill is finished for a kind when its cursor reached the end it recorded. */
export function finishBackfill(db: Db, kind: BackfillRow['kind']): void {
  db.prepare(`UPDATE search_backfill SET through = end_id, done = total WHERE kind = ?`).run(kind);
}
