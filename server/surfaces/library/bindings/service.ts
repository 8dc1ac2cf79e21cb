/**
 * Profile bindings and materialization (docs/adr/0006-library-and-document-surfaces.md): an agent
 * is bound to one exact shelf version (checked to exist, digest included), and materialize turns a
 * bound or named version into the home files a runtime writes.
 */
import type { BindInput, Binding } from '../../../../contract/library/bindings.ts';
import type { Materialized, MaterializeInput } from '../../../../contract/library/materialize.ts';
import type { NodeContext } from '../../../context.ts';
import { conflict, invalid, notFound } from '../../../errors.ts';
import { materializeHome } from '../domain/materialize.ts';
import { readProfile } from '../domain/profile-yaml.ts';
import { findBinding, listBindings, toBinding, upsertBinding } from './store.ts';
import { pinsOf } from '../shelf/store/shelf-profiles.ts';
import { libraryChanged } from '../changes.ts';
import type { Shelf } from '../shelf/service.ts';

export class Bindings {
  readonly #ctx: NodeContext;
  readonly #shelf: Shelf;

  constructor(ctx: NodeContext, shelf: Shelf) {
    this.#ctx = ctx;
    this.#shelf = shelf;
  }

  /** One binding per agent: binding again replaces it. The version defaults to the latest. */
  bind(teamId: string, agentId: string, body: BindInput): Binding {
    const entry = this.#shelf.entry(teamId, body.profile_ref, body.profile_version);
    if (body.profile_digest !== undefined && body.profile_digest !== entry.version.digest) {
      throw conflict(
        'SVC_ERR_PROFILE_DIGEST_MISMATCH',
        `profile_digest does not match ${body.profile_ref} version ${entry.version.version} (${entry.version.digest})`,
      );
    }
    const binding: Binding = {
      agent_id: agentId,
      profile_ref: body.profile_ref,
      profile_version: entry.version.version,
      profile_digest: entry.version.digest,
      source_blueprint_ref: body.source_blueprint_ref ?? entry.profile.source_blueprint_ref,
      bound_at: this.#ctx.clock.now().toISOString(),
    };
    upsertBinding(this.#ctx.db, { team_id: teamId, ...binding });
    libraryChanged(this.#ctx, teamId);
    return binding;
  }

  get(teamId: string, agentId: string): Binding {
    const row = findBinding(this.#ctx.db, teamId, agentId);
    if (!row) throw notFound('SVC_ERR_BINDING_NOT_FOUND', `No profile binding for agent ${agentId}`);
    return toBinding(row);
  }

  /** Every binding of the team (the UI shows which identity wears which profile). */
  list(teamId: string): Binding[] {
    return listBindings(this.#ctx.db, teamId).map(toBinding);
  }

  materialize(teamId: string, body: MaterializeInput): Materialized {
    let ref: string;
    let version: string | undefined;
    if (body.agent_id !== undefined) {
      const binding = this.get(teamId, body.agent_id);
      ref = binding.profile_ref;
      version = binding.profile_version;
    } else if (body.profile_ref !== undefined) {
      ref = body.profile_ref;
      version = body.profile_version;
    } else {
      throw invalid('SVC_ERR_MATERIALIZE_SOURCE_MISSING', 'Give agent_id (materialize its binding) or profile_ref');
    }
    const entry = this.#shelf.entry(teamId, ref, version);
    const pins = pinsOf(entry.profile);
    const source =
      pins.source_blueprint_ref !== null && pins.source_blueprint_version !== null && pins.source_blueprint_digest !== null
        ? { blueprint_ref: pins.source_blueprint_ref, blueprint_version: pins.source_blueprint_version, blueprint_digest: pins.source_blueprint_digest }
        : null;
    const { manifest } = readProfile(entry.files);
    const home = materializeHome({
      files: entry.files,
      profile_ref: ref,
      profile_version: entry.version.version,
      profile_digest: entry.version.digest,
      source,
      runtime_kind: body.runtime_kind,
      target: body.target,
      library_url: this.#ctx.urls.library_url,
    });
    return {
      profile_ref: ref,
      profile_version: entry.version.version,
      profile_digest: entry.version.digest,
      source_blueprint_ref: source?.blueprint_ref ?? null,
      source_blueprint_version: source?.blueprint_version ?? null,
      source_blueprint_digest: source?.blueprint_digest ?? null,
      runtime_kind: body.runtime_kind,
      target: body.target,
      runtime_assumptions: manifest.runtime_assumptions,
      memory_policy: manifest.memory_policy,
      home_files: home.home_files,
      managed_set: home.managed_set,
    };
  }
}
