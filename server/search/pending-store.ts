/**
 * Mail and chat written but not yet in the search indexes (migration 0031): the batches that move
 * them in (indexer.ts), and the index that finds them meanwhile.
 *
 * That index is this connection's own, in memory (an attached database, `recent`): FTS5 tables of
 * the same columns and tokenizer as the real ones, holding exactly the rows `search_pending`
 * notes. It is brought up to date before each search (`syncRecent`), not at each write, so it
 * costs the write path nothing; and a search reads it beside the real index (store/walk.ts), so a row
 * is findable from the moment its write commits.
 */
import type { Db } from '../context.ts';

export type PendingKind = 'mail' | 'chat';
export const PENDING_KINDS: readonly PendingKind[] = ['mail', 'chat'];

/** Each kind's index, the view that says what an indexed row holds (migration 0029), and its columns. */
const SOURCES: Record<PendingKind, { index: string; view: string; columns: string }> = {
  mail: { index: 'search_mail', view: 'search_mail_rows', columns: 'scope, subject, body, people' },
  chat: { index: 'search_chat', view: 'search_chat_rows', columns: 'scope, body, people' },
};

/** The schema of the in-memory index; its tables read as `recent.search_mail` and `recent.search_chat`. */
export const RECENT_SCHEMA = 'recent';

/** Creates this connection's in-memory index, once (outside any transaction: ATTACH cannot run in one). */
export function attachRecent(db: Db): void {
  const attached = db.prepare(`SELECT 1 FROM pragma_database_list WHERE name = ?`).pluck().get(RECENT_SCHEMA) !== undefined;
  if (attached) return;
  db.exec(`ATTACH DATABASE ':memory:' AS ${RECENT_SCHEMA}`);
  for (const kind of PENDING_KINDS) {
    const { index, columns } = SOURCES[kind];
    db.exec(
      `CREATE VIRTUAL TABLE ${RECENT_SCHEMA}.${index} USING fts5(${columns}, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`,
    );
  }
  db.exec(`CREATE TABLE ${RECENT_SCHEMA}.held (kind TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID`);
}

/**
 * Makes the in-memory index hold what is noted of `kind`, at most `limit` rows (the oldest noted
 * first): rows indexed since, or deleted, leave it; rows noted since come in.
 */
export function syncRecent(db: Db, kind: PendingKind, limit: number): void {
  const { index, view, columns } = SOURCES[kind];
  db.transaction(() => {
    const gone = `SELECT id FROM ${RECENT_SCHEMA}.held WHERE kind = @kind AND id NOT IN (SELECT id FROM main.search_pending WHERE kind = @kind)`;
    db.prepare(`DELETE FROM ${RECENT_SCHEMA}.${index} WHERE rowid IN (${gone})`).run({ kind });
    db.prepare(`DELETE FROM ${RECENT_SCHEMA}.held WHERE kind = @kind AND id NOT IN (SELECT id FROM main.search_pending WHERE kind = @kind)`).run({ kind });
    const held = db.prepare(`SELECT count(*) FROM ${RECENT_SCHEMA}.held WHERE kind = ?`).pluck().get(kind) as number;
    const added = db
      .prepare(
        `SELECT id FROM main.search_pending WHERE kind = @kind AND id NOT IN (SELECT id FROM ${RECENT_SCHEMA}.held WHERE kind = @kind) ORDER BY id LIMIT +@room`,
      )
      .pluck()
      .all({ kind, room: Math.max(0, limit - held) }) as number[];
    if (added.length === 0) return;
    const list = JSON.stringify(added);
    db.prepare(
      `INSERT INTO ${RECENT_SCHEMA}.${index} (rowid, ${columns}) SELECT id, ${columns} FROM main.${view} WHERE id IN (SELECT value FROM json_each(?))`,
    ).run(list);
    db.prepare(`INSERT INTO ${RECENT_SCHEMA}.held (kind, id) SELECT ?, value FROM json_each(?)`).run(kind, list);
  })();
}

/** Whether anything is noted: a read, which never waits for a writer's lock. */
export function anythingPending(db: Db): boolean {
  return db.prepare(`SELECT 1 FROM main.search_pending LIMIT 1`).pluck().get() !== undefined;
}

/** Rows noted and not yet indexed, of every kind. */
export function pendingCount(db: Db): number {
  return db.prepare(`SELECT count(*) FROM main.search_pending`).pluck().get() as number;
}

/** Moves the oldest `batch` noted rows of `kind` into its index, in the caller's transaction; how many moved. */
export function indexPending(db: Db, kind: PendingKind, batch: number): number {
  const { index, view, columns } = SOURCES[kind];
  const ids = db.prepare(`SELECT id FROM main.search_pending WHERE kind = ? ORDER BY id LIMIT +?`).pluck().all(kind, batch) as number[];
  if (ids.length === 0) return 0;
  const list = JSON.stringify(ids);
  db.prepare(
    `INSERT OR REPLACE INTO main.${index} (rowid, ${columns}) SELECT id, ${columns} FROM main.${view} WHERE id IN (SELECT value FROM json_each(?))`,
  ).run(list);
  db.prepare(`DELETE FROM main.search_pending WHERE kind = ? AND id IN (SELECT value FROM json_each(?))`).run(kind, list);
  return ids.length;
}
