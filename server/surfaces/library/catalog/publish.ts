/**
 * Publishing a shelf profile (upstream's publish-profile): going public means publishing a copy
 * into the catalog, either as a new blueprint or as a new version of one the team owns. A new
 * version keeps every profile of the previous one (the profile set accumulates), its README and
 * its manifest; the library writes blueprint.yaml itself.
 */
import type { NewBlueprintInput, PublishInput, PublishResult } from '../../../../contract/library/profiles.ts';
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { conflict, invalid, notFound } from '../../../errors.ts';
import type { BlueprintCatalog } from './service.ts';
import { buildBlueprintFiles, readBlueprintPayload } from '../domain/blueprint-yaml.ts';
import type { PayloadFile } from '../domain/payload.ts';
import type { Shelf } from '../shelf/service.ts';

export class ProfilePublisher {
  readonly #catalog: BlueprintCatalog;
  readonly #shelf: Shelf;

  constructor(catalog: BlueprintCatalog, shelf: Shelf) {
    this.#catalog = catalog;
    this.#shelf = shelf;
  }

  publish(teamId: string, ref: string, body: PublishInput): PublishResult {
    if ((body.target_blueprint_ref === undefined) === (body.new_blueprint === undefined)) {
      throw invalid('SVC_ERR_PUBLISH_TARGET_AMBIGUOUS', 'Give exactly one of target_blueprint_ref (a new version of a blueprint you own) or new_blueprint');
    }
    const entry = this.#shelf.entry(teamId, ref, body.profile_version);
    const profile = { profile_ref: ref, files: entry.files };
    const files = body.new_blueprint
      ? this.#newBlueprint(body.blueprint_version, body.new_blueprint, profile)
      : this.#nextVersion(body.target_blueprint_ref as string, body.blueprint_version, profile);
    const published = this.#catalog.publish(teamId, files);
    if (!published.created) {
      throw conflict(
        'SVC_ERR_BLUEPRINT_VERSION_UNCHANGED',
        `Blueprint ${published.blueprint_ref} version ${published.version} already holds exactly this content`,
      );
    }
    if (body.new_blueprint?.tags) this.#catalog.setTags(teamId, published.blueprint_ref, body.new_blueprint.tags);
    const mine = published.profiles.find((p) => p.profile_ref === ref);
    return {
      blueprint_ref: published.blueprint_ref,
      blueprint_version: published.version,
      blueprint_digest: published.digest,
      profile_ref: ref,
      profile_version: entry.version.version,
      profile_digest: mine?.digest ?? entry.version.digest,
    };
  }

  #newBlueprint(version: string, spec: NewBlueprintInput, profile: { profile_ref: string; files: PayloadFile[] }): PayloadFile[] {
    if (this.#catalog.latestVersion(spec.blueprint_ref) !== null) {
      throw conflict('SVC_ERR_BLUEPRINT_EXISTS', `Blueprint ${spec.blueprint_ref} already exists; publish into it with target_blueprint_ref`);
    }
    return buildBlueprintFiles({
      blueprint_ref: spec.blueprint_ref,
      version,
      name: spec.name,
      summary: spec.summary ?? null,
      description: spec.description ?? null,
      readme: spec.readme ?? null,
      first_mission_examples: spec.missions ?? [],
      profiles: [profile],
    });
  }

  #nextVersion(ref: string, version: string, profile: { profile_ref: string; files: PayloadFile[] }): PayloadFile[] {
    const previous = this.#catalog.latest(ref);
    if (!previous) throw notFound('SVC_ERR_BLUEPRINT_NOT_FOUND', `No blueprint ${ref}`);
    const { manifest, profiles } = readBlueprintPayload(previous.files);
    const others = profiles.filter((p) => p.profile_ref !== profile.profile_ref).map((p) => ({ profile_ref: p.profile_ref, files: p.files }));
    const readme = previous.files.find((f) => f.path === 'README.md')?.content_utf8 ?? null;
    const recommendations = manifest.recommendations as JsonValue[];
    return buildBlueprintFiles({
      blueprint_ref: ref,
      version,
      name: manifest.name,
      summary: manifest.summary,
      description: manifest.description,
      readme,
      first_mission_examples: manifest.first_mission_examples.filter((m): m is string => typeof m === 'string'),
      expected_apps: manifest.expected_apps,
      runtime_hints: manifest.runtime_hints,
      profiles: [...others, profile],
      recommendations,
    });
  }
}
