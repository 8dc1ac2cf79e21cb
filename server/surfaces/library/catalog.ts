/**
 * The public blueprint catalog (research A1, A4, A9): versioned, tagged blueprints owned by the
 * team that first published their ref. Anyone may read; only the owner may add versions, retag
 * or delete. A published (ref, version) never changes: re-importing identical content is a no-op,
 * different content a 409.
 */
import type {
  BlueprintDeleted,
  BlueprintDetail,
  BlueprintImportResult,
  BlueprintSummary,
  BlueprintTags,
  BlueprintVersion,
  PublicProfile,
} from '../../../contract/library/catalog.ts';
import type { NodeContext } from '../../context.ts';
import type { JsonValue } from '../../crypto/canonical-json.ts';
import { CATALOG_TOPIC } from '../../events/bus.ts';
import { conflict, forbidden, invalid, notFound } from '../../errors.ts';
import { readBlueprintPayload } from './domain/blueprint-yaml.ts';
import { blueprintDigest, profileDigest } from './domain/digest.ts';
import type { PayloadFile } from './domain/payload.ts';
import { readProfile } from './domain/profile-yaml.ts';
import { manifestOf } from './manifests.ts';
import { compareVersions } from '../../../contract/library-rules.ts';
import { filesOf, fromJson, listOf, tagsOf, toJson } from './records.ts';

interface VersionRow {
  seq: number;
  blueprint_ref: string;
  version: string;
  digest: string;
  name: string;
  summary: string | null;
  description: string | null;
  recommendations: string;
  runtime_hints: string;
  expected_apps: string;
  first_mission_examples: string;
  created_at: string;
  owner_team: string;
  tags: string;
  display_name: string | null;
}

interface ProfileRow {
  profile_ref: string;
  version: string;
  digest: string;
  files: string;
}

/** One published profile, as the shelf and the public profile read need it. */
export interface BlueprintProfile {
  blueprint_ref: string;
  blueprint_version: string;
  blueprint_digest: string;
  profile_ref: string;
  version: string;
  digest: string;
  files: PayloadFile[];
}

// Version rows are read without their files (a whole blueprint); #files loads them on demand.
const VERSION_COLUMNS = `v.seq, v.blueprint_ref, v.version, v.digest, v.name, v.summary, v.description, v.recommendations,
  v.runtime_hints, v.expected_apps, v.first_mission_examples, v.created_at, b.owner_team, b.tags, t.display_name`;
const VERSION_FROM = `blueprint_versions v JOIN blueprints b USING (blueprint_ref) LEFT JOIN library_teams t ON t.team_id = b.owner_team`;

function summaryOf(row: VersionRow): BlueprintSummary {
  return {
    blueprint_ref: row.blueprint_ref,
    version: row.version,
    digest: row.digest,
    tags: tagsOf(row.tags),
    name: row.name,
    summary: row.summary,
    description: row.description,
    recommendations: listOf(row.recommendations),
    runtime_hints: listOf(row.runtime_hints),
    expected_apps: listOf(row.expected_apps),
    first_mission_examples: listOf(row.first_mission_examples),
    owner: row.owner_team,
    display_name: row.display_name,
    published_at: row.created_at,
  };
}

export class BlueprintCatalog {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  /** Publishes a checked import payload as a new version of `blueprint.yaml`'s ref. */
  publish(teamId: string, files: PayloadFile[]): BlueprintImportResult {
    const { manifest, profiles } = readBlueprintPayload(files);
    const digest = blueprintDigest(files);
    const ref = manifest.blueprint_ref;
    const { db } = this.#ctx;
    const published = db.transaction((): BlueprintImportResult => {
      const owner = db.prepare(`SELECT owner_team FROM blueprints WHERE blueprint_ref = ?`).pluck().get(ref) as string | undefined;
      if (owner !== undefined && owner !== teamId) throw forbidden(`Blueprint ${ref} is owned by team ${owner}`);
      const result = (created: boolean): BlueprintImportResult => ({
        digest,
        blueprint_ref: ref,
        version: manifest.version,
        profiles: profiles.map((p) => ({ profile_ref: p.profile_ref, version: p.manifest.version, digest: profileDigest(p.files) })),
        created,
      });
      const existing = this.#version(ref, manifest.version);
      if (existing) {
        if (existing.digest === digest) return result(false);
        throw conflict(`Blueprint ${ref} version ${manifest.version} is already published with different content; publish a new version`);
      }
      const latest = this.#latest(ref);
      if (latest && compareVersions(manifest.version, latest.version) <= 0) {
        throw invalid(`Blueprint ${ref} version ${manifest.version} must be newer than the latest published version ${latest.version}`);
      }
      const now = this.#ctx.clock.now().toISOString();
      if (owner === undefined) {
        db.prepare(`INSERT INTO blueprints (blueprint_ref, owner_team, created_at) VALUES (?, ?, ?)`).run(ref, teamId, now);
      }
      const seq = db
        .prepare(
          `INSERT INTO blueprint_versions (blueprint_ref, version, digest, name, summary, description, recommendations,
             runtime_hints, expected_apps, first_mission_examples, files, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          ref,
          manifest.version,
          digest,
          manifest.name,
          manifest.summary,
          manifest.description,
          toJson(manifest.recommendations),
          toJson(manifest.runtime_hints),
          toJson(manifest.expected_apps),
          toJson(manifest.first_mission_examples),
          toJson(files),
          now,
        ).lastInsertRowid;
      const insertProfile = db.prepare(
        `INSERT INTO blueprint_profiles (version_seq, profile_ref, position, version, digest, files) VALUES (?, ?, ?, ?, ?, ?)`,
      );
      profiles.forEach((p, position) =>
        insertProfile.run(seq, p.profile_ref, position, p.manifest.version, profileDigest(p.files), toJson(p.files)),
      );
      return result(true);
    })();
    if (published.created) this.#changed();
    return published;
  }

  /** The latest version of every blueprint, newest first; `tags` matches any overlap. */
  list(tags: readonly string[]): BlueprintSummary[] {
    const rows = this.#ctx.db
      .prepare(`SELECT ${VERSION_COLUMNS} FROM ${VERSION_FROM} WHERE v.seq IN (SELECT max(seq) FROM blueprint_versions GROUP BY blueprint_ref) ORDER BY v.seq DESC`)
      .all() as VersionRow[];
    const wanted = new Set(tags);
    return rows.filter((row) => wanted.size === 0 || tagsOf(row.tags).some((tag) => wanted.has(tag))).map(summaryOf);
  }

  /** One blueprint at `version` (default latest) with its profiles, its files and every version. */
  get(ref: string, version?: string): BlueprintDetail {
    const row = this.#resolve(ref, version);
    const profiles = this.#ctx.db
      .prepare(`SELECT profile_ref, version, digest, files FROM blueprint_profiles WHERE version_seq = ? ORDER BY profile_ref`)
      .all(row.seq) as ProfileRow[];
    const versions = this.#ctx.db
      .prepare(`SELECT version, digest, created_at AS published_at FROM blueprint_versions WHERE blueprint_ref = ? ORDER BY seq DESC`)
      .all(ref) as BlueprintVersion[];
    return {
      ...summaryOf(row),
      profiles: profiles.map((p) => {
        const { name, mission } = manifestOf(p.digest, () => filesOf(p.files));
        return { profile_ref: p.profile_ref, version: p.version, digest: p.digest, name, mission };
      }),
      versions,
      files: this.#files(row.seq),
    };
  }

  /** One profile of a blueprint version (default latest), with its profile-relative files. */
  profile(ref: string, profileRef: string, version?: string): BlueprintProfile {
    const row = this.#resolve(ref, version);
    const profile = this.#ctx.db
      .prepare(`SELECT profile_ref, version, digest, files FROM blueprint_profiles WHERE version_seq = ? AND profile_ref = ?`)
      .get(row.seq, profileRef) as ProfileRow | undefined;
    if (!profile) throw notFound(`Blueprint ${ref} version ${row.version} has no profile ${profileRef}`);
    return {
      blueprint_ref: ref,
      blueprint_version: row.version,
      blueprint_digest: row.digest,
      profile_ref: profile.profile_ref,
      version: profile.version,
      digest: profile.digest,
      files: filesOf(profile.files),
    };
  }

  /** The public profile read (research A4 get-profile): the profile's manifest fields and files. */
  publicProfile(ref: string, profileRef: string, version?: string): PublicProfile {
    const profile = this.profile(ref, profileRef, version);
    const { manifest, document } = readProfile(profile.files);
    const recommendation = this.#recommendation(ref, profile.blueprint_version, profileRef);
    return {
      blueprint_ref: profile.blueprint_ref,
      blueprint_version: profile.blueprint_version,
      profile_ref: profile.profile_ref,
      version: profile.version,
      digest: profile.digest,
      name: manifest.name,
      mission: manifest.mission,
      accepted_work: manifest.accepted_work,
      runtime_assumptions: manifest.runtime_assumptions,
      runtime_hints: recommendation?.runtime_hints ?? document.runtime_hints ?? [],
      memory_policy: manifest.memory_policy,
      expected_apps: manifest.expected_apps,
      event_subscriptions: manifest.event_subscriptions,
      approval_required: manifest.approval_required,
      files: profile.files,
    };
  }

  /** The latest version string of `ref`, or null when it is not (or no longer) published. */
  latestVersion(ref: string): string | null {
    const version = this.#ctx.db.prepare(`SELECT version FROM blueprint_versions WHERE blueprint_ref = ? ORDER BY seq DESC LIMIT 1`).pluck().get(ref);
    return (version as string | undefined) ?? null;
  }

  /** The digest of `profileRef` in the latest version of `ref`; null when that version lacks it. */
  latestProfileDigest(ref: string, profileRef: string): string | null {
    const digest = this.#ctx.db
      .prepare(
        `SELECT p.digest FROM blueprint_profiles p WHERE p.profile_ref = ?
           AND p.version_seq = (SELECT max(seq) FROM blueprint_versions WHERE blueprint_ref = ?)`,
      )
      .pluck()
      .get(profileRef, ref);
    return (digest as string | undefined) ?? null;
  }

  /** The owner's profile set of the latest version, plus its prior README and manifest. */
  latest(ref: string) {
    const row = this.#latest(ref);
    return row ? { ...summaryOf(row), files: this.#files(row.seq), seq: row.seq } : null;
  }

  setTags(teamId: string, ref: string, tags: string[]): BlueprintTags {
    this.#owned(teamId, ref);
    this.#ctx.db.prepare(`UPDATE blueprints SET tags = ? WHERE blueprint_ref = ?`).run(toJson(tags), ref);
    this.#changed();
    return { blueprint_ref: ref, tags };
  }

  /** Hard-deletes every version and detaches the shelf profiles (of every team) that track it. */
  delete(teamId: string, ref: string): BlueprintDeleted {
    this.#owned(teamId, ref);
    const { db } = this.#ctx;
    const deleted = db.transaction(() => {
      const versions = db.prepare(`SELECT version FROM blueprint_versions WHERE blueprint_ref = ? ORDER BY seq`).pluck().all(ref) as string[];
      db.prepare(`DELETE FROM blueprints WHERE blueprint_ref = ?`).run(ref);
      const detached = db
        .prepare(
          `UPDATE shelf_profiles SET source_blueprint_ref = NULL, source_blueprint_version = NULL, source_blueprint_digest = NULL,
             source_profile_ref = NULL, source_profile_version = NULL, source_profile_digest = NULL, part_baselines = NULL
           WHERE source_blueprint_ref = ?`,
        )
        .run(ref).changes;
      return { blueprint_ref: ref, deleted_versions: versions, detached_profiles: detached };
    })();
    this.#changed();
    return deleted;
  }

  /** Announced after the write commits: open catalog views re-read (the owner's event stream). */
  #changed(): void {
    this.#ctx.bus.publish(CATALOG_TOPIC);
  }

  /** blueprint.yaml's `profiles[]` entry for a profile (where runtime hints live). */
  #recommendation(ref: string, version: string, profileRef: string): { runtime_hints?: JsonValue } | undefined {
    const row = this.#version(ref, version);
    const entries = (row ? fromJson<JsonValue[]>(row.recommendations) : null) ?? [];
    return entries.find((e): e is { [key: string]: JsonValue } => typeof e === 'object' && e !== null && !Array.isArray(e) && e.id === profileRef);
  }

  #owned(teamId: string, ref: string): void {
    const owner = this.#ctx.db.prepare(`SELECT owner_team FROM blueprints WHERE blueprint_ref = ?`).pluck().get(ref) as string | undefined;
    if (owner === undefined) throw notFound(`No blueprint ${ref}`);
    if (owner !== teamId) throw forbidden(`Blueprint ${ref} is owned by team ${owner}`);
  }

  #files(seq: number): PayloadFile[] {
    return filesOf(this.#ctx.db.prepare(`SELECT files FROM blueprint_versions WHERE seq = ?`).pluck().get(seq) as string);
  }

  #resolve(ref: string, version?: string): VersionRow {
    const row = version === undefined ? this.#latest(ref) : this.#version(ref, version);
    if (!row) throw notFound(version === undefined ? `No blueprint ${ref}` : `No blueprint ${ref} version ${version}`);
    return row;
  }

  #latest(ref: string): VersionRow | undefined {
    return this.#ctx.db
      .prepare(`SELECT ${VERSION_COLUMNS} FROM ${VERSION_FROM} WHERE v.blueprint_ref = ? ORDER BY v.seq DESC LIMIT 1`)
      .get(ref) as VersionRow | undefined;
  }

  #version(ref: string, version: string): VersionRow | undefined {
    return this.#ctx.db
      .prepare(`SELECT ${VERSION_COLUMNS} FROM ${VERSION_FROM} WHERE v.blueprint_ref = ? AND v.version = ?`)
      .get(ref, version) as VersionRow | undefined;
  }
}
