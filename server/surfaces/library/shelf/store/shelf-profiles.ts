/**
 * The `shelf_profiles` table: a team's profile records. Tags, source pins and merge baselines are
 * record metadata, so a new version (shelf_versions) keeps them and none enters a digest. Deleting
 * a profile deletes its versions, bindings and proposals (foreign-key cascade).
 */
import type { SourcePins } from '../../../../../contract/library/common.ts';
import type { Db } from '../../../../context.ts';
import { fromJson, toJson } from '../../domain/json-columns.ts';
import type { ShelfVersionHead } from './shelf-versions.ts';

export interface ShelfProfileRow extends SourcePins {
  team_id: string;
  profile_ref: string;
  /** JSON list of strings. */
  tags: string;
  /** JSON object: the source's part digests at the last import or update (the merge base). */
  part_baselines: string | null;
  created_at: string;
}

/** Part path → digest, as domain/digest.ts partDigests computes them. */
export type PartBaselines = Record<string, string>;

export interface NewShelfProfile {
  team_id: string;
  profile_ref: string;
  tags: readonly string[];
  pins: SourcePins;
  part_baselines: PartBaselines | null;
  created_at: string;
}

/** The pins of a profile made on the shelf (or detached from its blueprint). */
export const NO_SOURCE: SourcePins = {
  source_blueprint_ref: null,
  source_blueprint_version: null,
  source_blueprint_digest: null,
  source_profile_ref: null,
  source_profile_version: null,
  source_profile_digest: null,
};

export function findShelfProfile(db: Db, teamId: string, ref: string): ShelfProfileRow | undefined {
  return db.prepare(`SELECT * FROM shelf_profiles WHERE team_id = ? AND profile_ref = ?`).get(teamId, ref) as ShelfProfileRow | undefined;
}

/**
 * A page of the team's profiles after `after` in profile_ref order, each with its latest version
 * (no files); every profile when `limit` is undefined.
 */
export function shelfProfilesWithLatest(
  db: Db,
  teamId: string,
  page: { after?: string | undefined; limit?: number | undefined },
): { profile: ShelfProfileRow; version: ShelfVersionHead }[] {
  // '' sorts before every ref and LIMIT -1 is SQLite's "no limit": one statement for both shapes.
  const rows = db
    .prepare(
      `SELECT p.*, v.seq AS v_seq, v.version AS v_version, v.digest AS v_digest, v.origin AS v_origin, v.created_at AS v_created_at
       FROM shelf_profiles p JOIN shelf_versions v
         ON v.seq = (SELECT max(seq) FROM shelf_versions WHERE team_id = p.team_id AND profile_ref = p.profile_ref)
       WHERE p.team_id = ? AND p.profile_ref > ? ORDER BY p.profile_ref LIMIT +?`,
    )
    .all(teamId, page.after ?? '', page.limit ?? -1) as (ShelfProfileRow & {
    v_seq: number;
    v_version: string;
    v_digest: string;
    v_origin: ShelfVersionHead['origin'];
    v_created_at: string;
  })[];
  return rows.map(({ v_seq, v_version, v_digest, v_origin, v_created_at, ...profile }) => ({
    profile,
    version: { seq: v_seq, version: v_version, digest: v_digest, origin: v_origin, created_at: v_created_at },
  }));
}

export function insertShelfProfile(db: Db, row: NewShelfProfile): void {
  db.prepare(
    `INSERT INTO shelf_profiles (team_id, profile_ref, tags, source_blueprint_ref, source_blueprint_version, source_blueprint_digest,
       source_profile_ref, source_profile_version, source_profile_digest, part_baselines, created_at)
     VALUES (@team_id, @profile_ref, @tags, @source_blueprint_ref, @source_blueprint_version, @source_blueprint_digest,
       @source_profile_ref, @source_profile_version, @source_profile_digest, @part_baselines, @created_at)`,
  ).run({
    team_id: row.team_id,
    profile_ref: row.profile_ref,
    tags: toJson(row.tags),
    ...row.pins,
    part_baselines: row.part_baselines === null ? null : toJson(row.part_baselines),
    created_at: row.created_at,
  });
}

export function setShelfProfileTags(db: Db, teamId: string, ref: string, tags: readonly string[]): void {
  db.prepare(`UPDATE shelf_profiles SET tags = ? WHERE team_id = ? AND profile_ref = ?`).run(toJson(tags), teamId, ref);
}

/** Pins a profile to a newer version of the same source profile, with that version's part digests. */
export function repinShelfProfile(
  db: Db,
  teamId: string,
  ref: string,
  source: { blueprint_version: string; blueprint_digest: string; profile_version: string; profile_digest: string; part_baselines: PartBaselines },
): void {
  db.prepare(
    `UPDATE shelf_profiles SET source_blueprint_version = ?, source_blueprint_digest = ?, source_profile_version = ?,
       source_profile_digest = ?, part_baselines = ? WHERE team_id = ? AND profile_ref = ?`,
  ).run(source.blueprint_version, source.blueprint_digest, source.profile_version, source.profile_digest, toJson(source.part_baselines), teamId, ref);
}

/** Detaches the profiles (of every team) that track `blueprintRef`; returns how many. */
export function detachShelfProfiles(db: Db, blueprintRef: string): number {
  return db
    .prepare(
      `UPDATE shelf_profiles SET source_blueprint_ref = NULL, source_blueprint_version = NULL, source_blueprint_digest = NULL,
         source_profile_ref = NULL, source_profile_version = NULL, source_profile_digest = NULL, part_baselines = NULL
       WHERE source_blueprint_ref = ?`,
    )
    .run(blueprintRef).changes;
}

export function deleteShelfProfile(db: Db, teamId: string, ref: string): void {
  db.prepare(`DELETE FROM shelf_profiles WHERE team_id = ? AND profile_ref = ?`).run(teamId, ref);
}

export const shelfProfileTags = (row: ShelfProfileRow): string[] => fromJson<string[]>(row.tags);

export const partBaselinesOf = (row: ShelfProfileRow): PartBaselines | null => fromJson<PartBaselines>(row.part_baselines);

/** The row's source pins alone (the row carries them among its other columns). */
export function pinsOf(row: SourcePins): SourcePins {
  return {
    source_blueprint_ref: row.source_blueprint_ref,
    source_blueprint_version: row.source_blueprint_version,
    source_blueprint_digest: row.source_blueprint_digest,
    source_profile_ref: row.source_profile_ref,
    source_profile_version: row.source_profile_version,
    source_profile_digest: row.source_profile_digest,
  };
}
