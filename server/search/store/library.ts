/** Profiles and blueprints found by a search (their latest versions, bm25-ranked). */
import type { Db } from '../../context.ts';
import { TITLED_WEIGHTS } from './walk.ts';

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
