/**
 * The `blueprints` table: one row per blueprint ref, owned by the team that first published it,
 * with the tags every version shares. Deleting a row deletes its versions and their profiles
 * (foreign-key cascade).
 */
import type { Db } from '../../../../context.ts';
import { toJson } from '../../domain/json-columns.ts';

export interface BlueprintRow {
  blueprint_ref: string;
  owner_team: string;
  /** JSON list of strings. */
  tags: string;
  created_at: string;
}

/** The owning team of `ref`, or undefined when no such blueprint is published. */
export function blueprintOwner(db: Db, ref: string): string | undefined {
  return db.prepare(`SELECT owner_team FROM blueprints WHERE blueprint_ref = ?`).pluck().get(ref) as string | undefined;
}

/** A new blueprint ref, untagged. */
export function insertBlueprint(db: Db, row: Omit<BlueprintRow, 'tags'>): void {
  db.prepare(`INSERT INTO blueprints (blueprint_ref, owner_team, created_at) VALUES (@blueprint_ref, @owner_team, @created_at)`).run(row);
}

export function setBlueprintTags(db: Db, ref: string, tags: readonly string[]): void {
  db.prepare(`UPDATE blueprints SET tags = ? WHERE blueprint_ref = ?`).run(toJson(tags), ref);
}

export function deleteBlueprint(db: Db, ref: string): void {
  db.prepare(`DELETE FROM blueprints WHERE blueprint_ref = ?`).run(ref);
}
