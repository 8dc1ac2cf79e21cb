/**
 * The `shelf_versions` table: each shelf profile's immutable content versions. "Latest" is the
 * highest `seq`, and the shelf only inserts versions newer than the latest, so it is also the
 * highest version. Versions are read without their files (a head); shelfVersionFiles loads them.
 */
import type { ProfileVersion, VersionOrigin } from '../../../../../contract/library/profiles.ts';
import type { Db } from '../../../../context.ts';
import type { PayloadFile } from '../../domain/payload.ts';
import { fromJson, toJson } from '../../domain/json-columns.ts';

export interface ShelfVersionRow {
  seq: number;
  team_id: string;
  profile_ref: string;
  version: string;
  digest: string;
  /** JSON list of the profile's files. */
  files: string;
  origin: VersionOrigin;
  created_at: string;
}

/** A version without its files, as every read but the content read takes it. */
export type ShelfVersionHead = Pick<ShelfVersionRow, 'seq' | 'version' | 'digest' | 'origin' | 'created_at'>;

export interface NewShelfVersion extends Omit<ShelfVersionRow, 'seq' | 'files'> {
  files: readonly PayloadFile[];
}

const HEAD_COLUMNS = 'seq, version, digest, origin, created_at';

export function latestShelfVersion(db: Db, teamId: string, ref: string): ShelfVersionHead | undefined {
  return db.prepare(`SELECT ${HEAD_COLUMNS} FROM shelf_versions WHERE team_id = ? AND profile_ref = ? ORDER BY seq DESC LIMIT 1`).get(teamId, ref) as
    ShelfVersionHead | undefined;
}

export function findShelfVersion(db: Db, teamId: string, ref: string, version: string): ShelfVersionHead | undefined {
  return db.prepare(`SELECT ${HEAD_COLUMNS} FROM shelf_versions WHERE team_id = ? AND profile_ref = ? AND version = ?`).get(teamId, ref, version) as
    ShelfVersionHead | undefined;
}

/** The files of the version `seq` (which must exist). */
export function shelfVersionFiles(db: Db, seq: number): PayloadFile[] {
  return fromJson<PayloadFile[]>(db.prepare(`SELECT files FROM shelf_versions WHERE seq = ?`).pluck().get(seq) as string);
}

/** Every version of a profile as the shelf lists them, newest first. */
export function shelfVersionHistory(db: Db, teamId: string, ref: string): ProfileVersion[] {
  return db
    .prepare(`SELECT version, digest, origin, created_at FROM shelf_versions WHERE team_id = ? AND profile_ref = ? ORDER BY seq DESC`)
    .all(teamId, ref) as ProfileVersion[];
}

/** Every version string of a profile, oldest first. */
export function shelfVersionNumbers(db: Db, teamId: string, ref: string): string[] {
  return db.prepare(`SELECT version FROM shelf_versions WHERE team_id = ? AND profile_ref = ? ORDER BY seq`).pluck().all(teamId, ref) as string[];
}

export function insertShelfVersion(db: Db, row: NewShelfVersion): void {
  db.prepare(
    `INSERT INTO shelf_versions (team_id, profile_ref, version, digest, files, origin, created_at)
     VALUES (@team_id, @profile_ref, @version, @digest, @files, @origin, @created_at)`,
  ).run({ ...row, files: toJson(row.files) });
}
