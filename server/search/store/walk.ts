/**
 * The search indexes (migration 0029) are queried only by the modules of this folder, one per kind
 * of thing found (mail.ts, chat.ts, documents.ts, library.ts), with the shared walk here. Each
 * `*Candidates` query takes a MATCH expression already made safe (query.ts; the scope part from
 * scope.ts) and returns the most recent matching rows, up to `window`: FTS5 walks its index newest
 * first and stops at the window, so a word in half a million rows costs a window's worth of work,
 * not the half million. Mail and chat candidates come without relevance (scoring.ts weighs them
 * from their text, index-texts.ts); documents and profiles, small indexes, with FTS5's bm25.
 */
import type { Db } from '../../context.ts';
import { RECENT_SCHEMA } from '../pending-store.ts';

/** Filters every kind may apply (null: not asked). */
export interface TimeFilter {
  after: string | null;
  before: string | null;
}

/** A mail or chat row a walk down the index found: relevance is weighed later, from its text (scoring.ts). */
export interface WalkedRow {
  id: number;
  created_at: string;
}

// bm25 weights per column of the small indexes: scope never scores; a title word counts most.
export const TITLED_WEIGHTS = '0.0, 4.0, 1.0';

export const timeClause = (column: string) => `(@after IS NULL OR ${column} >= @after) AND (@before IS NULL OR ${column} < @before)`;
/** Mail and chat check `after` as they walk (newestDownTo). */
export const beforeClause = (column: string) => `(@before IS NULL OR ${column} < @before)`;

/** The lowest row id written at or after `after`: a row of that time or later has an id at least this (ids are not in time order, so min). */
function lowestIdSince(db: Db, table: 'messages' | 'chat_messages', after: string | null): number {
  if (after === null) return 0;
  // Through the time index (migration 0030): left to itself, SQLite walks the ids up from the first.
  return (
    (db.prepare(`SELECT min(id) FROM ${table} INDEXED BY ${table}_created WHERE created_at >= ?`).pluck().get(after) as number | null) ??
    Number.MAX_SAFE_INTEGER
  );
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
export function newestOfIndex<T extends { id: number; created_at: string }>(
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
