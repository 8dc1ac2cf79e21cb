/**
 * A team's private shelf (docs/adr/0006-library-and-document-surfaces.md): working copies of
 * profiles, each an immutable series of versions. Tags, source pins and merge baselines are record
 * metadata of the profile, so a new version keeps them and none of them enters a digest.
 */
import { notNewerProblem } from '../../../../contract/library-rules.ts';
import type {
  AuthoredProfile,
  ProfileDeleted,
  ProfileSummary,
  ProfileTags,
  ProfileVersions,
  ProfileWithFiles,
  UpdateFromSourceInput,
  UpdateFromSourceResult,
  VersionOrigin,
} from '../../../../contract/library/profiles.ts';
import type { SourcePins } from '../../../../contract/library/common.ts';
import type { ShelfImportInput, ShelfImportResult, ShelfPage, ShelfQuery } from '../../../../contract/library/shelf.ts';
import type { NodeContext } from '../../../context.ts';
import { conflict, invalid, notFound } from '../../../errors.ts';
import type { ShelfProfiles } from '../../../search/service.ts';
import type { BlueprintCatalog } from '../catalog/service.ts';
import { libraryChanged } from '../changes.ts';
import { partDigests, profileDigest, proposalAssetDigests } from '../domain/digest.ts';
import { mergeFromSource } from '../domain/merge.ts';
import { registerSkills } from '../domain/skills.ts';
import { checkPayloadFiles, type PayloadFile, type PayloadFileInput } from '../domain/payload.ts';
import { manifestOf } from '../manifests.ts';
import { latestBlueprintProfileDigest } from '../catalog/store/blueprint-profiles.ts';
import { latestBlueprintVersionNumber } from '../catalog/store/blueprint-versions.ts';
import {
  deleteShelfProfile,
  findShelfProfile,
  insertShelfProfile,
  NO_SOURCE,
  partBaselinesOf,
  pinsOf,
  repinShelfProfile,
  setShelfProfileTags,
  shelfProfilesWithLatest,
  shelfProfileTags,
  type PartBaselines,
  type ShelfProfileRow,
} from './store/shelf-profiles.ts';
import {
  findShelfVersion,
  insertShelfVersion,
  latestShelfVersion,
  shelfVersionFiles,
  shelfVersionHistory,
  shelfVersionNumbers,
  type ShelfVersionHead,
} from './store/shelf-versions.ts';

/** A profile with its latest (or requested) version, decoded. */
export interface ShelfEntry {
  profile: ShelfProfileRow;
  version: ShelfVersionHead;
  files: PayloadFile[];
}

function summaryOf(profile: ShelfProfileRow, version: ShelfVersionHead, files: () => readonly PayloadFile[]): ProfileSummary {
  const manifest = manifestOf(version.digest, files);
  return {
    profile_ref: profile.profile_ref,
    version: version.version,
    digest: version.digest,
    tags: shelfProfileTags(profile),
    name: manifest.name,
    mission: manifest.mission,
    accepted_work: manifest.accepted_work,
    runtime_assumptions: manifest.runtime_assumptions,
    memory_policy: manifest.memory_policy,
    expected_apps: manifest.expected_apps,
    ...pinsOf(profile),
    origin: version.origin,
    created_at: version.created_at,
  };
}

const summaryOfEntry = ({ profile, version, files }: ShelfEntry): ProfileSummary => summaryOf(profile, version, () => files);

export class Shelf {
  readonly #ctx: NodeContext;
  readonly #catalog: BlueprintCatalog;

  constructor(ctx: NodeContext, catalog: BlueprintCatalog) {
    this.#ctx = ctx;
    this.#catalog = catalog;
  }

  /**
   * What search needs of the shelf, which only the library parses: a profile's name as its latest
   * profile.yaml gives it (the shelf shows it so), to title its hits.
   */
  readonly profiles: ShelfProfiles = {
    profileName: (teamId, ref) => {
      const head = latestShelfVersion(this.#ctx.db, teamId, ref);
      return head === undefined ? null : manifestOf(head.digest, () => shelfVersionFiles(this.#ctx.db, head.seq)).name;
    },
  };

  /**
   * A new profile made on the shelf; its ref is profile.yaml's `id`. Skills found in the files are
   * declared (library/domain/skills.ts); `registered_skills` names the SKILL.md files that were.
   */
  create(teamId: string, sent: readonly PayloadFileInput[], tags: string[] = []): AuthoredProfile {
    const { files, registered } = registerSkills(checkPayloadFiles(sent, ['body', 'files']), ['body', 'files']);
    const ref = manifestOf(profileDigest(files), () => files, ['body', 'files']).id;
    const { db } = this.#ctx;
    const created = db.transaction(() => {
      if (findShelfProfile(db, teamId, ref)) throw conflict('SVC_ERR_PROFILE_EXISTS', `Profile ${ref} is already on the shelf; add a version to it instead`);
      this.#insertProfile(teamId, ref, tags, NO_SOURCE, null);
      return { ...summaryOfEntry(this.insertVersion(teamId, ref, files, 'created')), registered_skills: registered };
    })();
    libraryChanged(this.#ctx, teamId);
    return created;
  }

  /** A new content version of an owned profile, its skills declared as create() does. */
  addVersion(teamId: string, ref: string, sent: readonly PayloadFileInput[]): AuthoredProfile {
    const { files, registered } = registerSkills(checkPayloadFiles(sent, ['body', 'files']), ['body', 'files']);
    const manifest = manifestOf(profileDigest(files), () => files, ['body', 'files']);
    if (manifest.id !== ref) throw invalid('SVC_ERR_PROFILE_ID_MISMATCH', `profile.yaml id "${manifest.id}" must equal the profile_ref ${ref}`);
    const added = this.#ctx.db.transaction(() => {
      this.#head(teamId, ref);
      return { ...summaryOfEntry(this.insertVersion(teamId, ref, files, 'version')), registered_skills: registered };
    })();
    libraryChanged(this.#ctx, teamId);
    return added;
  }

  /**
   * Inserts a version after the checks every path shares: the version is new (a duplicate is a
   * 409, never an overwrite) and newer than the latest, so "latest" is also the highest.
   */
  insertVersion(teamId: string, ref: string, files: PayloadFile[], origin: VersionOrigin): ShelfEntry {
    const { db } = this.#ctx;
    const digest = profileDigest(files);
    const { version } = manifestOf(digest, () => files);
    const latest = latestShelfVersion(db, teamId, ref);
    if (latest?.version === version || findShelfVersion(db, teamId, ref, version)) {
      throw conflict('SVC_ERR_PROFILE_VERSION_EXISTS', `Profile ${ref} version ${version} already exists; versions are immutable`);
    }
    const notNewer = latest ? notNewerProblem(version, latest.version) : null;
    if (notNewer !== null) throw invalid('SVC_ERR_PROFILE_VERSION_NOT_NEWER', `Profile ${ref} ${notNewer}`);
    insertShelfVersion(db, { team_id: teamId, profile_ref: ref, version, digest, files, origin, created_at: this.#ctx.clock.now().toISOString() });
    return { ...this.#head(teamId, ref), files };
  }

  /** The profile at `version` (default: latest); 404 when the team holds no such profile. */
  entry(teamId: string, ref: string, version?: string): ShelfEntry {
    const { profile, version: row } = this.#head(teamId, ref, version);
    return { profile, version: row, files: shelfVersionFiles(this.#ctx.db, row.seq) };
  }

  get(teamId: string, ref: string, options: { files: boolean; version?: string | undefined }): ProfileWithFiles | ProfileSummary {
    if (options.files) {
      const entry = this.entry(teamId, ref, options.version);
      return { ...summaryOfEntry(entry), files: entry.files, proposal_asset_digests: proposalAssetDigests(entry.files) };
    }
    const { profile, version } = this.#head(teamId, ref, options.version);
    return summaryOf(profile, version, () => shelfVersionFiles(this.#ctx.db, version.seq));
  }

  versions(teamId: string, ref: string): ProfileVersions {
    this.#head(teamId, ref);
    return { profile_ref: ref, versions: shelfVersionHistory(this.#ctx.db, teamId, ref) };
  }

  /**
   * The working set: each profile's latest version, its pins, and whether its source moved on, in
   * profile_ref order. Ours: `limit` and `after` page it by key, and only the page's rows cost
   * a manifest and catalog lookups, so a page reads the same on a shelf of any size.
   */
  list(teamId: string, page: ShelfQuery = {}): ShelfPage {
    const { db } = this.#ctx;
    // One row past the page says whether there is more.
    const rows = shelfProfilesWithLatest(db, teamId, { after: page.after, limit: page.limit === undefined ? undefined : page.limit + 1 });
    const hasMore = page.limit !== undefined && rows.length > page.limit;
    const shown = hasMore ? rows.slice(0, page.limit) : rows;
    const profiles = shown.map(({ profile, version }) => {
      const summary = summaryOf(profile, version, () => shelfVersionFiles(db, version.seq));
      const source = summary.source_blueprint_ref;
      const latest = source === null ? null : latestBlueprintVersionNumber(db, source);
      // The spec's flag is about the blueprint; whether this profile itself changed there is what
      // tells a person an update would pull something.
      const latestDigest = source === null || summary.source_profile_ref === null ? null : latestBlueprintProfileDigest(db, source, summary.source_profile_ref);
      return {
        profile_ref: summary.profile_ref,
        version: summary.version,
        digest: summary.digest,
        name: summary.name,
        summary: summary.mission,
        tags: summary.tags,
        source_blueprint_ref: summary.source_blueprint_ref,
        source_blueprint_version: summary.source_blueprint_version,
        source_blueprint_digest: summary.source_blueprint_digest,
        source_profile_ref: summary.source_profile_ref,
        source_profile_version: summary.source_profile_version,
        source_blueprint_latest_version: latest,
        update_available: latest !== null && latest !== summary.source_blueprint_version,
        source_profile_changed: latestDigest !== null && latestDigest !== summary.source_profile_digest,
        updated_at: summary.created_at,
      };
    });
    return { profiles, has_more: hasMore, next_after: hasMore ? (shown.at(-1)?.profile.profile_ref ?? null) : null };
  }

  /**
   * Copies a public blueprint's profile to the shelf, byte for byte (so the digests agree).
   * Idempotent per source profile: a re-import returns the copy as it is now.
   */
  importFromBlueprint(teamId: string, input: ShelfImportInput): ShelfImportResult {
    const source = this.#catalog.profile(input.source_blueprint_ref, input.profile_ref, input.source_blueprint_version);
    const { db } = this.#ctx;
    const result = db.transaction(() => {
      const held = findShelfProfile(db, teamId, input.profile_ref);
      if (held) {
        if (held.source_blueprint_ref !== source.blueprint_ref || held.source_profile_ref !== source.profile_ref) {
          throw conflict('SVC_ERR_PROFILE_EXISTS', `Profile ${input.profile_ref} is already on the shelf from ${held.source_blueprint_ref ?? 'no blueprint'}`);
        }
        return this.#importResult(this.entry(teamId, input.profile_ref), false);
      }
      const pins: SourcePins = {
        source_blueprint_ref: source.blueprint_ref,
        source_blueprint_version: source.blueprint_version,
        source_blueprint_digest: source.blueprint_digest,
        source_profile_ref: source.profile_ref,
        source_profile_version: source.version,
        source_profile_digest: source.digest,
      };
      this.#insertProfile(teamId, source.profile_ref, input.tags ?? [], pins, partDigests(source.files));
      return this.#importResult(this.insertVersion(teamId, source.profile_ref, source.files, 'import'), true);
    })();
    if (result.created) libraryChanged(this.#ctx, teamId);
    return result;
  }

  /**
   * Pulls the source blueprint's newer profile in, part by part (library/domain/merge.ts): un-evolved
   * parts take the upstream change, locally evolved ones are kept. Nothing pullable is a no-op.
   */
  updateFromSource(teamId: string, ref: string, input: UpdateFromSourceInput): UpdateFromSourceResult {
    const { db } = this.#ctx;
    const result = db.transaction((): UpdateFromSourceResult => {
      const current = this.entry(teamId, ref);
      const { profile } = current;
      if (profile.source_blueprint_ref === null || profile.source_profile_ref === null) {
        throw conflict('SVC_ERR_PROFILE_NO_SOURCE', `Profile ${ref} has no source blueprint to update from (it was created on the shelf or detached)`);
      }
      const theirs = this.#catalog.profile(profile.source_blueprint_ref, profile.source_profile_ref, input.source_blueprint_version);
      const baselines = partBaselinesOf(profile) ?? partDigests(current.files);
      const merged = mergeFromSource({ ours: current.files, theirs: theirs.files, baselines, targetVersion: input.target_version });
      if (merged.updated_parts.length === 0) {
        return {
          profile_ref: ref,
          version: current.version.version,
          digest: current.version.digest,
          updated: false,
          updated_parts: [],
          preserved_parts: merged.preserved_parts,
          source_blueprint_version: profile.source_blueprint_version,
          source_blueprint_digest: profile.source_blueprint_digest,
        };
      }
      if (input.dry_run) {
        // A preview: what would be taken and kept, with nothing minted or re-pinned.
        return {
          profile_ref: ref,
          version: current.version.version,
          digest: current.version.digest,
          updated: false,
          dry_run: true,
          updated_parts: merged.updated_parts,
          preserved_parts: merged.preserved_parts,
          source_blueprint_version: theirs.blueprint_version,
          source_blueprint_digest: theirs.blueprint_digest,
        };
      }
      const minted = this.insertVersion(teamId, ref, merged.files, 'update-from-source');
      repinShelfProfile(db, teamId, ref, {
        blueprint_version: theirs.blueprint_version,
        blueprint_digest: theirs.blueprint_digest,
        profile_version: theirs.version,
        profile_digest: theirs.digest,
        part_baselines: partDigests(theirs.files),
      });
      return {
        profile_ref: ref,
        version: minted.version.version,
        digest: minted.version.digest,
        updated: true,
        updated_parts: merged.updated_parts,
        preserved_parts: merged.preserved_parts,
        source_blueprint_version: theirs.blueprint_version,
        source_blueprint_digest: theirs.blueprint_digest,
      };
    })();
    // A preview, or nothing to pull, changed nothing.
    if (result.updated) libraryChanged(this.#ctx, teamId);
    return result;
  }

  setTags(teamId: string, ref: string, tags: string[]): ProfileTags {
    this.#head(teamId, ref);
    setShelfProfileTags(this.#ctx.db, teamId, ref, tags);
    libraryChanged(this.#ctx, teamId);
    return { profile_ref: ref, tags };
  }

  /** Hard-deletes every version; bindings and proposals go with it (foreign-key cascade). */
  delete(teamId: string, ref: string): ProfileDeleted {
    const { db } = this.#ctx;
    const deleted = db.transaction(() => {
      this.#head(teamId, ref);
      const versions = shelfVersionNumbers(db, teamId, ref);
      deleteShelfProfile(db, teamId, ref);
      return { profile_ref: ref, deleted_versions: versions };
    })();
    libraryChanged(this.#ctx, teamId);
    return deleted;
  }

  #head(teamId: string, ref: string, version?: string): { profile: ShelfProfileRow; version: ShelfVersionHead } {
    const { db } = this.#ctx;
    const profile = findShelfProfile(db, teamId, ref);
    if (!profile) throw notFound('SVC_ERR_PROFILE_NOT_FOUND', `No profile ${ref} on this team's shelf`);
    const row = version === undefined ? latestShelfVersion(db, teamId, ref) : findShelfVersion(db, teamId, ref, version);
    if (!row) throw notFound('SVC_ERR_PROFILE_VERSION_NOT_FOUND', `Profile ${ref} has no version ${version}`);
    return { profile, version: row };
  }

  #importResult(entry: ShelfEntry, created: boolean): ShelfImportResult {
    return {
      profile_ref: entry.profile.profile_ref,
      version: entry.version.version,
      digest: entry.version.digest,
      ...pinsOf(entry.profile),
      tags: shelfProfileTags(entry.profile),
      created,
    };
  }

  #insertProfile(teamId: string, ref: string, tags: string[], pins: SourcePins, baselines: PartBaselines | null): void {
    insertShelfProfile(this.#ctx.db, {
      team_id: teamId,
      profile_ref: ref,
      tags,
      pins,
      part_baselines: baselines,
      created_at: this.#ctx.clock.now().toISOString(),
    });
  }
}
