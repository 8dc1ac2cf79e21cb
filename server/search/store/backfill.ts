/** Indexing what was written before the indexes existed: a cursor per kind, moved batch by batch. */
import type { Db } from '../../context.ts';

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
  const moved = db
    .prepare(`SELECT count(*) FROM ${source} WHERE ${idColumn} > ? AND ${idColumn} <= ?`)
    .pluck()
    .get(from, last ?? end) as number;
  db.prepare(insert).run({ from, end: last ?? end, batch });
  db.prepare(`UPDATE search_backfill SET through = ?, done = min(total, done + ?) WHERE kind = ?`).run(String(last ?? end), moved, kind);
  return moved;
}

/** The documents after `through`, up to the backfill's end, in id order. */
export function documentsToBackfill(
  db: Db,
  batch: number,
): Array<{ document_id: string; team_id: string; title: string; slug: string; current_version: number }> {
  const state = db.prepare(`SELECT through, end_id FROM search_backfill WHERE kind = 'document'`).get() as { through: string; end_id: string };
  return db
    .prepare(
      `SELECT document_id, team_id, title, slug, current_version FROM documents WHERE document_id > ? AND document_id <= ? ORDER BY document_id LIMIT +?`,
    )
    .all(state.through, state.end_id, batch) as Array<{ document_id: string; team_id: string; title: string; slug: string; current_version: number }>;
}

export function markDocumentsBackfilled(db: Db, through: string, count: number): void {
  db.prepare(`UPDATE search_backfill SET through = ?, done = min(total, done + ?) WHERE kind = 'document'`).run(through, count);
}

/** Backfill is finished for a kind when its cursor reached the end it recorded. */
export function finishBackfill(db: Db, kind: BackfillRow['kind']): void {
  db.prepare(`UPDATE search_backfill SET through = end_id, done = total WHERE kind = ?`).run(kind);
}
