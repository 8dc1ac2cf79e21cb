/**
 * The `blueprint_profiles` table: each profile of a blueprint version, with profile-relative
 * files, so public reads and shelf imports need no split of the blueprint's payload.
 */
import type { Db } from '../../../../context.ts';
import type { PayloadFile } from '../../domain/payload.ts';
import { fromJson, toJson } from '../../domain/json-columns.ts';

export interface BlueprintProfileRow {
  version_seq: number;
  profile_ref: string;
  /** Its place in blueprint.yaml's profile list. */
  position: number;
  version: string;
  digest: string;
  /** JSON list of the profile's files. */
  files: string;
}

/** A profile as publishing writes it; its position is its index in the version's list. */
export interface NewBlueprintProfile {
  profile_ref: string;
  version: string;
  digest: string;
  files: PayloadFile[];
}

/** The profiles of the version `seq`, in profile_ref order. */
export function blueprintProfilesAt(db: Db, seq: number): BlueprintProfileRow[] {
  return db.prepare(`SELECT * FROM blueprint_profiles WHERE version_seq = ? ORDER BY profile_ref`).all(seq) as BlueprintProfileRow[];
}

export function findBlueprintProfile(db: Db, seq: number, profileRef: string): BlueprintProfileRow | undefined {
  return db.prepare(`SELECT * FROM blueprint_profiles WHERE version_seq = ? AND profile_ref = ?`).get(seq, profileRef) as BlueprintProfileRow | undefined;
}

/** The digest of `profileRef` in the latest version of `blueprintRef`; null when that version lacks it. */
export function latestBlueprintProfileDigest(db: Db, blueprintRef: string, profileRef: string): string | null {
  const digest = db
    .prepare(
      `SELECT p.digest FROM blueprint_profiles p WHERE p.profile_ref = ?
         AND p.version_seq = (SELECT max(seq) FROM blueprint_versions WHERE blueprint_ref = ?)`,
    )
    .pluck()
    .get(profileRef, blueprintRef) as string | undefined;
  return digest ?? null;
}

export function insertBlueprintProfiles(db: Db, seq: number, profiles: readonly NewBlueprintProfile[]): void {
  const insert = db.prepare(`INSERT INTO blueprint_profiles (version_seq, profile_ref, position, version, digest, files) VALUES (?, ?, ?, ?, ?, ?)`);
  profiles.forEach((p, position) => insert.run(seq, p.profile_ref, position, p.version, p.digest, toJson(p.files)));
}

export const blueprintProfileFiles = (row: BlueprintProfileRow): PayloadFile[] => fromJson<PayloadFile[]>(row.files);
