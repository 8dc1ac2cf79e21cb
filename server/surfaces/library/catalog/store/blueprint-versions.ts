/**
 * The `blueprint_versions` table: each published (ref, version), immutable. "Latest" is the
 * highest `seq`, which new versions only ever raise. Catalog reads take a version without its
 * files (a whole blueprint's payload), joined with its blueprint's owner and tags and the owner's
 * registered display name; blueprintVersionFiles loads the files when they are needed.
 */
import type { BlueprintSummary, BlueprintVersion } from '../../../../../contract/library/catalog.ts';
import type { Db } from '../../../../context.ts';
import type { JsonValue } from '../../../../crypto/canonical-json.ts';
import type { PayloadFile } from '../../domain/payload.ts';
import { fromJson, toJson } from '../../domain/json-columns.ts';

export interface BlueprintVersionRow {
  seq: number;
  blueprint_ref: string;
  version: string;
  digest: string;
  name: string;
  summary: string | null;
  description: string | null;
  /** JSON lists, as blueprint.yaml has them. */
  recommendations: string;
  runtime_hints: string;
  expected_apps: string;
  first_mission_examples: string;
  /** JSON list of the whole payload's files. */
  files: string;
  created_at: string;
}

/** A version as the catalog reads it: no files; its blueprint's owner and tags; the owner's name. */
export interface CatalogVersionRow extends Omit<BlueprintVersionRow, 'files'> {
  owner_team: string;
  /** JSON list of strings (blueprints.tags). */
  tags: string;
  display_name: string | null;
}

/** What publishing writes: the manifest's lists and the files, decoded. */
export interface NewBlueprintVersion extends Omit<
  BlueprintVersionRow,
  'seq' | 'recommendations' | 'runtime_hints' | 'expected_apps' | 'first_mission_examples' | 'files'
> {
  recommendations: JsonValue[];
  runtime_hints: JsonValue[];
  expected_apps: JsonValue[];
  first_mission_examples: JsonValue[];
  files: PayloadFile[];
}

const CATALOG_COLUMNS = `v.seq, v.blueprint_ref, v.version, v.digest, v.name, v.summary, v.description, v.recommendations,
  v.runtime_hints, v.expected_apps, v.first_mission_examples, v.created_at, b.owner_team, b.tags, t.display_name`;
const CATALOG_FROM = `blueprint_versions v JOIN blueprints b USING (blueprint_ref) LEFT JOIN library_teams t ON t.team_id = b.owner_team`;

/** The latest version of every blueprint, newest first. */
export function latestCatalogVersions(db: Db): CatalogVersionRow[] {
  return db
    .prepare(
      `SELECT ${CATALOG_COLUMNS} FROM ${CATALOG_FROM} WHERE v.seq IN (SELECT max(seq) FROM blueprint_versions GROUP BY blueprint_ref) ORDER BY v.seq DESC`,
    )
    .all() as CatalogVersionRow[];
}

export function latestCatalogVersion(db: Db, ref: string): CatalogVersionRow | undefined {
  return db.prepare(`SELECT ${CATALOG_COLUMNS} FROM ${CATALOG_FROM} WHERE v.blueprint_ref = ? ORDER BY v.seq DESC LIMIT 1`).get(ref) as
    CatalogVersionRow | undefined;
}

export function findCatalogVersion(db: Db, ref: string, version: string): CatalogVersionRow | undefined {
  return db.prepare(`SELECT ${CATALOG_COLUMNS} FROM ${CATALOG_FROM} WHERE v.blueprint_ref = ? AND v.version = ?`).get(ref, version) as
    CatalogVersionRow | undefined;
}

/** The latest version string of `ref`, or null when it is not (or no longer) published. */
export function latestBlueprintVersionNumber(db: Db, ref: string): string | null {
  const version = db.prepare(`SELECT version FROM blueprint_versions WHERE blueprint_ref = ? ORDER BY seq DESC LIMIT 1`).pluck().get(ref) as string | undefined;
  return version ?? null;
}

/** Every version of `ref`, oldest first. */
export function blueprintVersionNumbers(db: Db, ref: string): string[] {
  return db.prepare(`SELECT version FROM blueprint_versions WHERE blueprint_ref = ? ORDER BY seq`).pluck().all(ref) as string[];
}

/** Every version of `ref` as the catalog lists them, newest first. */
export function blueprintVersionHistory(db: Db, ref: string): BlueprintVersion[] {
  return db
    .prepare(`SELECT version, digest, created_at AS published_at FROM blueprint_versions WHERE blueprint_ref = ? ORDER BY seq DESC`)
    .all(ref) as BlueprintVersion[];
}

/** The whole payload of the version `seq` (which must exist). */
export function blueprintVersionFiles(db: Db, seq: number): PayloadFile[] {
  return fromJson<PayloadFile[]>(db.prepare(`SELECT files FROM blueprint_versions WHERE seq = ?`).pluck().get(seq) as string);
}

/** Inserts a version of an existing blueprint ref; returns its `seq`. */
export function insertBlueprintVersion(db: Db, row: NewBlueprintVersion): number {
  const { lastInsertRowid } = db
    .prepare(
      `INSERT INTO blueprint_versions (blueprint_ref, version, digest, name, summary, description, recommendations,
         runtime_hints, expected_apps, first_mission_examples, files, created_at)
       VALUES (@blueprint_ref, @version, @digest, @name, @summary, @description, @recommendations,
         @runtime_hints, @expected_apps, @first_mission_examples, @files, @created_at)`,
    )
    .run({
      ...row,
      recommendations: toJson(row.recommendations),
      runtime_hints: toJson(row.runtime_hints),
      expected_apps: toJson(row.expected_apps),
      first_mission_examples: toJson(row.first_mission_examples),
      files: toJson(row.files),
    });
  return Number(lastInsertRowid);
}

export const blueprintTagsOf = (row: CatalogVersionRow): string[] => fromJson<string[]>(row.tags);

/** blueprint.yaml's `profiles[]` entries verbatim (where a profile's runtime hints live). */
export const recommendationsOf = (row: CatalogVersionRow): JsonValue[] => fromJson<JsonValue[]>(row.recommendations);

export function toBlueprintSummary(row: CatalogVersionRow): BlueprintSummary {
  return {
    blueprint_ref: row.blueprint_ref,
    version: row.version,
    digest: row.digest,
    tags: blueprintTagsOf(row),
    name: row.name,
    summary: row.summary,
    description: row.description,
    recommendations: recommendationsOf(row),
    runtime_hints: fromJson<JsonValue[]>(row.runtime_hints),
    expected_apps: fromJson<JsonValue[]>(row.expected_apps),
    first_mission_examples: fromJson<JsonValue[]>(row.first_mission_examples),
    owner: row.owner_team,
    display_name: row.display_name,
    published_at: row.created_at,
  };
}
