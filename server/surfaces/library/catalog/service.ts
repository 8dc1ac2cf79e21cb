/**
 * The public blueprint catalog (docs/adr/0006-library-and-document-surfaces.md): versioned, tagged
 * blueprints owned by the team that first published their ref. Anyone may read; only the owner may
 * add versions, retag or delete. A published (ref, version) never changes: re-importing identical
 * content is a no-op, different content a 409.
 */
import type {
  BlueprintDeleted,
  BlueprintDetail,
  BlueprintImportResult,
  BlueprintSummary,
  BlueprintTags,
  PublicProfile,
} from '../../../../contract/library/catalog.ts';
import { compareVersions } from '../../../../contract/library-rules.ts';
import type { NodeContext } from '../../../context.ts';
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { CATALOG_TOPIC } from '../../../events/bus.ts';
import { libraryChanged } from '../changes.ts';
import { conflict, forbidden, invalid, notFound } from '../../../errors.ts';
import { readBlueprintPayload } from '../domain/blueprint-yaml.ts';
import { blueprintDigest, profileDigest } from '../domain/digest.ts';
import { checkPayloadFiles, type PayloadFile, type PayloadFileInput } from '../domain/payload.ts';
import { readProfile } from '../domain/profile-yaml.ts';
import { manifestOf } from '../manifests.ts';
import { blueprintProfileFiles, blueprintProfilesAt, findBlueprintProfile, insertBlueprintProfiles } from './store/blueprint-profiles.ts';
import {
  blueprintTagsOf,
  blueprintVersionFiles,
  blueprintVersionHistory,
  blueprintVersionNumbers,
  findCatalogVersion,
  insertBlueprintVersion,
  latestBlueprintVersionNumber,
  latestCatalogVersion,
  latestCatalogVersions,
  recommendationsOf,
  toBlueprintSummary,
  type CatalogVersionRow,
} from './store/blueprint-versions.ts';
import { blueprintOwner, deleteBlueprint, insertBlueprint, setBlueprintTags } from './store/blueprints.ts';
import { registerLibraryTeam } from '../shelf/store/library-teams.ts';
import { detachShelfProfiles } from '../shelf/store/shelf-profiles.ts';

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

export class BlueprintCatalog {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  /**
   * A team's import (`POST /v1/blueprints/import`): the files as sent, checked here; publishing
   * registers the team implicitly, with neither of its public fields set (shelf/registrations.ts).
   */
  importPayload(teamId: string, sent: readonly PayloadFileInput[]): BlueprintImportResult {
    const files = checkPayloadFiles(sent, ['body', 'files']);
    const { db } = this.#ctx;
    const published = db.transaction(() => {
      registerLibraryTeam(db, { team_id: teamId, owner: null, display_name: null, registered_at: this.#ctx.clock.now().toISOString() });
      return this.#insert(teamId, files);
    })();
    if (published.created) this.#changed(teamId);
    return published;
  }

  /** Publishes a checked import payload as a new version of `blueprint.yaml`'s ref. */
  publish(teamId: string, files: PayloadFile[]): BlueprintImportResult {
    const published = this.#insert(teamId, files);
    if (published.created) this.#changed(teamId);
    return published;
  }

  #insert(teamId: string, files: PayloadFile[]): BlueprintImportResult {
    const { manifest, profiles } = readBlueprintPayload(files);
    const digest = blueprintDigest(files);
    const ref = manifest.blueprint_ref;
    const { db } = this.#ctx;
    return db.transaction((): BlueprintImportResult => {
      const owner = blueprintOwner(db, ref);
      if (owner !== undefined && owner !== teamId) throw forbidden('SVC_ERR_BLUEPRINT_OWNED_BY_OTHER_TEAM', `Blueprint ${ref} is owned by team ${owner}`);
      const stored = profiles.map((p) => ({ profile_ref: p.profile_ref, version: p.manifest.version, digest: profileDigest(p.files), files: p.files }));
      const result = (created: boolean): BlueprintImportResult => ({
        digest,
        blueprint_ref: ref,
        version: manifest.version,
        profiles: stored.map(({ files: _files, ...summary }) => summary),
        created,
      });
      const existing = findCatalogVersion(db, ref, manifest.version);
      if (existing) {
        if (existing.digest === digest) return result(false);
        throw conflict(
          'SVC_ERR_BLUEPRINT_VERSION_EXISTS',
          `Blueprint ${ref} version ${manifest.version} is already published with different content; publish a new version`,
        );
      }
      const latest = latestBlueprintVersionNumber(db, ref);
      if (latest !== null && compareVersions(manifest.version, latest) <= 0) {
        throw invalid(
          'SVC_ERR_BLUEPRINT_VERSION_NOT_NEWER',
          `Blueprint ${ref} version ${manifest.version} must be newer than the latest published version ${latest}`,
        );
      }
      const now = this.#ctx.clock.now().toISOString();
      if (owner === undefined) insertBlueprint(db, { blueprint_ref: ref, owner_team: teamId, created_at: now });
      const seq = insertBlueprintVersion(db, {
        blueprint_ref: ref,
        version: manifest.version,
        digest,
        name: manifest.name,
        summary: manifest.summary,
        description: manifest.description,
        recommendations: manifest.recommendations,
        runtime_hints: manifest.runtime_hints,
        expected_apps: manifest.expected_apps,
        first_mission_examples: manifest.first_mission_examples,
        files,
        created_at: now,
      });
      insertBlueprintProfiles(db, seq, stored);
      return result(true);
    })();
  }

  /** The latest version of every blueprint, newest first; `tags` matches any overlap. */
  list(tags: readonly string[]): BlueprintSummary[] {
    const wanted = new Set(tags);
    return latestCatalogVersions(this.#ctx.db)
      .filter((row) => wanted.size === 0 || blueprintTagsOf(row).some((tag) => wanted.has(tag)))
      .map(toBlueprintSummary);
  }

  /** One blueprint at `version` (default latest) with its profiles, its files and every version. */
  get(ref: string, version?: string): BlueprintDetail {
    const { db } = this.#ctx;
    const row = this.#resolve(ref, version);
    const profiles = blueprintProfilesAt(db, row.seq);
    const versions = blueprintVersionHistory(db, ref);
    return {
      ...toBlueprintSummary(row),
      profiles: profiles.map((p) => {
        const { name, mission } = manifestOf(p.digest, () => blueprintProfileFiles(p));
        return { profile_ref: p.profile_ref, version: p.version, digest: p.digest, name, mission };
      }),
      versions,
      files: blueprintVersionFiles(db, row.seq),
    };
  }

  /** One profile of a blueprint version (default latest), with its profile-relative files. */
  profile(ref: string, profileRef: string, version?: string): BlueprintProfile {
    const row = this.#resolve(ref, version);
    const profile = findBlueprintProfile(this.#ctx.db, row.seq, profileRef);
    if (!profile) throw notFound('SVC_ERR_BLUEPRINT_PROFILE_NOT_FOUND', `Blueprint ${ref} version ${row.version} has no profile ${profileRef}`);
    return {
      blueprint_ref: ref,
      blueprint_version: row.version,
      blueprint_digest: row.digest,
      profile_ref: profile.profile_ref,
      version: profile.version,
      digest: profile.digest,
      files: blueprintProfileFiles(profile),
    };
  }

  /** The public profile read (upstream's get-profile): the profile's manifest fields and files. */
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
    return latestBlueprintVersionNumber(this.#ctx.db, ref);
  }

  /** The owner's profile set of the latest version, plus its prior README and manifest. */
  latest(ref: string) {
    const row = latestCatalogVersion(this.#ctx.db, ref);
    return row ? { ...toBlueprintSummary(row), files: blueprintVersionFiles(this.#ctx.db, row.seq) } : null;
  }

  setTags(teamId: string, ref: string, tags: string[]): BlueprintTags {
    this.#owned(teamId, ref);
    setBlueprintTags(this.#ctx.db, ref, tags);
    this.#changed(teamId);
    return { blueprint_ref: ref, tags };
  }

  /** Hard-deletes every version and detaches the shelf profiles (of every team) that track it. */
  delete(teamId: string, ref: string): BlueprintDeleted {
    this.#owned(teamId, ref);
    const { db } = this.#ctx;
    const deleted = db.transaction(() => {
      const versions = blueprintVersionNumbers(db, ref);
      deleteBlueprint(db, ref);
      const detached = detachShelfProfiles(db, ref);
      return { blueprint_ref: ref, deleted_versions: versions, detached_profiles: detached };
    })();
    this.#changed(teamId);
    return deleted;
  }

  /**
   * Announced after the write commits: open catalog views re-read (the owner's event stream), and
   * so do the publishing team's, whose library now holds the blueprint it owns (and, on a first
   * import, its registration).
   */
  #changed(teamId: string): void {
    this.#ctx.bus.publish(CATALOG_TOPIC);
    libraryChanged(this.#ctx, teamId);
  }

  /** blueprint.yaml's `profiles[]` entry for a profile (where runtime hints live). */
  #recommendation(ref: string, version: string, profileRef: string): { runtime_hints?: JsonValue } | undefined {
    const row = findCatalogVersion(this.#ctx.db, ref, version);
    const entries = row ? recommendationsOf(row) : [];
    return entries.find((e): e is { [key: string]: JsonValue } => typeof e === 'object' && e !== null && !Array.isArray(e) && e.id === profileRef);
  }

  #owned(teamId: string, ref: string): void {
    const owner = blueprintOwner(this.#ctx.db, ref);
    if (owner === undefined) throw notFound('SVC_ERR_BLUEPRINT_NOT_FOUND', `No blueprint ${ref}`);
    if (owner !== teamId) throw forbidden('SVC_ERR_BLUEPRINT_OWNED_BY_OTHER_TEAM', `Blueprint ${ref} is owned by team ${owner}`);
  }

  #resolve(ref: string, version?: string): CatalogVersionRow {
    const row = version === undefined ? latestCatalogVersion(this.#ctx.db, ref) : findCatalogVersion(this.#ctx.db, ref, version);
    if (!row) {
      throw version === undefined
        ? notFound('SVC_ERR_BLUEPRINT_NOT_FOUND', `No blueprint ${ref}`)
        : notFound('SVC_ERR_BLUEPRINT_VERSION_NOT_FOUND', `No blueprint ${ref} version ${version}`);
    }
    return row;
  }
}
