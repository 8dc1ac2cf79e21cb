/** What the mail and chat indexes hold, read to weigh what a walk found (scoring.ts). */
import type { Db } from '../../context.ts';

/** A row of a mail or chat index's view (migration 0029): its id and the named text columns. */
export type IndexedText = { id: number } & Record<string, string>;

/** What `index` holds of each of `ids` (its view, `<index>_rows`), in the `columns` the code names, for weighing them. */
export function indexedTexts(db: Db, index: 'search_mail' | 'search_chat', columns: readonly string[], ids: readonly number[]): IndexedText[] {
  if (ids.length === 0) return [];
  return db
    .prepare(`SELECT id, ${columns.join(', ')} FROM ${index}_rows WHERE id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(ids)) as IndexedText[];
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
  const row = db.prepare(`SELECT (SELECT min(id) FROM ${table}) AS lowest, (SELECT max(id) FROM ${table}) AS highest`).get() as {
    lowest: number | null;
    highest: number | null;
  };
  return row.lowest === null || row.highest === null ? null : { lowest: row.lowest, highest: row.highest };
}

/** The ids of the newest `n` rows of `index` matching `match` (no scope: how common a phrase is). */
export function newestMatches(db: Db, index: 'search_mail' | 'search_chat', match: string, n: number): number[] {
  return db.prepare(`SELECT rowid FROM ${index} WHERE ${index} MATCH ? ORDER BY rowid DESC LIMIT +?`).pluck().all(match, n) as number[];
}
