/**
 * The library surface (blueprints, the team's shelf of agent profiles, publishing, proposals,
 * bindings, materialize). The catalog reads are public; everything else is a team-signed request
 * (team-request.ts).
 */
import { fetchJson } from './client.ts';
import type { FetchLike } from './client.ts';
import { query, sendSigned, trimSlash, type Method, type TeamSigner } from './team-request.ts';

// ---------------------------------------------------------------------------------------------
// Wire types
// ---------------------------------------------------------------------------------------------

/** One file of a blueprint or profile payload. */
export interface LibraryFile {
  path: string;
  content_utf8: string;
  sha256: string;
}

/** A blueprint in the public catalog (its latest version). */
export interface BlueprintSummary {
  blueprint_ref: string;
  version: string;
  digest: string;
  tags: string[];
  name: string;
  summary: string | null;
  description: string | null;
  /** The owning team's id. */
  owner: string;
  display_name: string | null;
  published_at: string;
}

export interface BlueprintProfileSummary {
  profile_ref: string;
  version: string;
  digest: string;
  name: string | null;
  mission: string | null;
}

export interface BlueprintDetail extends BlueprintSummary {
  profiles: BlueprintProfileSummary[];
  versions: { version: string; digest: string; published_at: string }[];
  files: LibraryFile[];
}

/** Where a shelf profile was copied from; all null for one made on the shelf. */
export interface SourcePins {
  source_blueprint_ref: string | null;
  source_blueprint_version: string | null;
  source_blueprint_digest: string | null;
  source_profile_ref: string | null;
  source_profile_version: string | null;
  source_profile_digest?: string | null;
}

/** One profile of the team's shelf, at its latest version (`GET /v1/shelf`). */
export interface ShelfProfile extends SourcePins {
  profile_ref: string;
  version: string;
  digest: string;
  name: string | null;
  /** The profile's mission. */
  summary: string | null;
  tags: string[];
  /** The source blueprint's newest published version; null when it has no source. */
  source_blueprint_latest_version: string | null;
  update_available: boolean;
  /** The source's latest version changed this profile (so an update would pull something). */
  source_profile_changed: boolean;
  updated_at: string;
}

export type VersionOrigin = 'created' | 'version' | 'import' | 'update-from-source' | 'proposal';

export interface ProfileSummary extends SourcePins {
  profile_ref: string;
  version: string;
  digest: string;
  tags: string[];
  name: string | null;
  mission: string | null;
  accepted_work: unknown[];
  runtime_assumptions: unknown[];
  memory_policy: unknown;
  expected_apps: unknown[];
  origin: VersionOrigin | string;
  created_at: string;
}

/** A profile created or saved as a new version: the node also says which skills it declared in profile.yaml. */
export interface AuthoredProfile extends ProfileSummary {
  /** The `skills/<n>/SKILL.md` files that had no `skills:` entry; the node added one for each. */
  registered_skills: string[];
}

/** One page of `GET /v1/shelf?limit&after`, in profile_ref order. */
export interface ShelfPage {
  profiles: ShelfProfile[];
  has_more: boolean;
  /** The `after` of the next page; null on the last one. */
  next_after: string | null;
}

/** `GET /v1/profiles/{ref}?include=files`: the files, and the digest a proposal quotes per asset. */
export interface ProfileWithFiles extends ProfileSummary {
  files: LibraryFile[];
  proposal_asset_digests: Record<string, string>;
}

/** `POST /v1/profiles`: a profile made on the shelf (profile.yaml's id becomes its ref). */
export interface CreateProfileInput {
  files: { path: string; content_utf8: string }[];
  tags?: string[];
}

export interface ProfileVersion {
  version: string;
  digest: string;
  origin: VersionOrigin | string;
  created_at: string;
}

export interface ImportInput {
  source_blueprint_ref: string;
  source_blueprint_version?: string;
  profile_ref: string;
  tags?: string[];
}

export interface ImportResult extends SourcePins {
  profile_ref: string;
  version: string;
  digest: string;
  tags: string[];
  /** False when the profile was already on the shelf from that source. */
  created: boolean;
}

export interface UpdateFromSourceInput {
  target_version: string;
  source_blueprint_version?: string;
}

export interface UpdateFromSourceResult {
  profile_ref: string;
  version: string;
  digest: string;
  /** False when nothing could be taken from the source (no version was minted). */
  updated: boolean;
  /** `field:<name>` and `file:<path>` parts taken from the source. */
  updated_parts: string[];
  /** Parts the source changed too, kept as the team edited them. */
  preserved_parts: string[];
  source_blueprint_version: string | null;
}

/** A new blueprint, made by publishing a profile into it. */
export interface NewBlueprintInput {
  blueprint_ref: string;
  name: string;
  summary?: string;
  tags?: string[];
  readme?: string;
}

/**
 * `POST /v1/profiles/{ref}/publish`: a profile version (default latest) as a new blueprint, or as a
 * new version of a blueprint the team owns (its other profiles and README carry over).
 */
export type PublishInput = { blueprint_version: string; profile_version?: string } & (
  | { target_blueprint_ref: string; new_blueprint?: never }
  | { new_blueprint: NewBlueprintInput; target_blueprint_ref?: never }
);

export interface PublishResult {
  blueprint_ref: string;
  blueprint_version: string;
  blueprint_digest: string;
  profile_ref: string;
  profile_version: string;
  profile_digest: string;
}

/** `POST /v1/blueprints/import`: the canonical payload; the node computes every sha256. */
export interface BlueprintImportPayload {
  schema: 'svc.blueprint.import-payload.v1';
  files: { path: string; content_utf8: string }[];
}

export interface BlueprintImportResult {
  blueprint_ref: string;
  version: string;
  digest: string;
  profiles: { profile_ref: string; version: string; digest: string }[];
  /** False when this version was already published with identical content (nothing changed). */
  created: boolean;
}

export interface BlueprintDeleted {
  blueprint_ref: string;
  deleted_versions: string[];
  /** Shelf profiles (of every team) that tracked it and now stand on their own. */
  detached_profiles: number;
}

/** One change of a profile changeset: a file, or one profile.yaml field (`profile.yaml#mission`). */
export interface ProposalAsset {
  path: string;
  content_utf8?: string;
  content?: unknown;
  delete?: boolean;
  base_asset_digest?: string;
}

export type ProposalStatus = 'open' | 'approved' | 'rejected';

export interface Proposal {
  proposal_id: string;
  target: 'profile' | 'memory' | 'skill' | 'workflow' | string;
  profile_ref: string;
  status: ProposalStatus;
  /** For target `profile`, a changeset `{schema, assets}`; for other targets whatever was proposed. */
  content: unknown;
  summary: string | null;
  rationale: string | null;
  base_profile_version: string | null;
  created_by_alias: string;
  created_at: string;
  decided_by_alias: string | null;
  decided_at: string | null;
  decision_reason: string | null;
  minted?: { profile_ref: string; version: string; digest: string; supersedes_profile_version: string };
}

export interface Binding {
  agent_id: string;
  profile_ref: string;
  profile_version: string;
  profile_digest: string;
  source_blueprint_ref: string | null;
  bound_at: string;
}

export interface BindInput {
  profile_ref: string;
  profile_version?: string;
  profile_digest?: string;
}

export type MaterializeTarget = 'local' | 'custodial-mcp';

export type MaterializeInput = ({ agent_id: string } | { profile_ref: string; profile_version?: string }) & {
  runtime_kind: string;
  target: MaterializeTarget;
};

export type HomeFile = { path: string; kind: 'file'; content_utf8: string } | { path: string; kind: 'symlink'; target: string };

export interface Materialized {
  profile_ref: string;
  profile_version: string;
  profile_digest: string;
  source_blueprint_ref: string | null;
  source_blueprint_version: string | null;
  runtime_kind: string;
  target: MaterializeTarget;
  home_files: HomeFile[];
  managed_set: string[];
}

// ---------------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------------

const ref = encodeURIComponent;

/** The library surface for one team of this node. */
export class LibraryClient {
  readonly libraryUrl: string;
  readonly teamId: string;
  readonly #fetch: FetchLike;
  readonly #sign: TeamSigner;

  constructor(options: { libraryUrl: string; teamId: string; fetch: FetchLike; sign: TeamSigner }) {
    this.libraryUrl = trimSlash(options.libraryUrl);
    this.teamId = options.teamId;
    this.#fetch = options.fetch;
    this.#sign = options.sign;
  }

  #public<T>(path: string): Promise<T> {
    return fetchJson<T>(this.#fetch, `${this.libraryUrl}${path}`, { method: 'GET', headers: { accept: 'application/json' } });
  }

  #signed<T>(method: Method, path: string, body?: unknown): Promise<T> {
    return sendSigned<T>(this.#fetch, this.#sign, method, path, body === undefined ? undefined : { json: body });
  }

  // -------------------------------------------------------------- the public catalog

  /** The latest version of every public blueprint; with tags, those carrying any of them. */
  catalog(tags: readonly string[] = []): Promise<BlueprintSummary[]> {
    return this.#public<BlueprintSummary[]>(`/v1/blueprints${query({ tags: tags.length ? tags : undefined })}`);
  }

  blueprint(blueprintRef: string, version?: string): Promise<BlueprintDetail> {
    return this.#public<BlueprintDetail>(`/v1/blueprints/${ref(blueprintRef)}${query({ version })}`);
  }

  /** Publishes a blueprint folder's payload as the team (a new ref, or a new version of one it owns). */
  importBlueprint(payload: BlueprintImportPayload): Promise<BlueprintImportResult> {
    return this.#signed<BlueprintImportResult>('POST', '/v1/blueprints/import', payload);
  }

  /** Every version of a blueprint the team owns; shelf copies tracking it are detached. */
  deleteBlueprint(blueprintRef: string): Promise<BlueprintDeleted> {
    return this.#signed<BlueprintDeleted>('DELETE', `/v1/blueprints/${ref(blueprintRef)}`);
  }

  // -------------------------------------------------------------- the team's shelf

  /** One page of the shelf in profile_ref order, starting after `after` (the node allows 1-500 a page). */
  shelfPage(page: { limit: number; after?: string | null }): Promise<ShelfPage> {
    return this.#signed<ShelfPage>('GET', `/v1/shelf${query({ limit: String(page.limit), after: page.after ?? undefined })}`);
  }

  importProfile(input: ImportInput): Promise<ImportResult> {
    return this.#signed<ImportResult>('POST', '/v1/shelf/import', input);
  }

  /** A new profile made on the shelf (409 when the team already has one with that id). */
  createProfile(input: CreateProfileInput): Promise<AuthoredProfile> {
    return this.#signed<AuthoredProfile>('POST', '/v1/profiles', input);
  }

  /** A profile at its latest (or the given) version, with its files and proposal digests. */
  profile(profileRef: string, version?: string): Promise<ProfileWithFiles> {
    return this.#signed<ProfileWithFiles>('GET', `/v1/profiles/${ref(profileRef)}${query({ include: 'files', version })}`);
  }

  /** Newest first. */
  async versions(profileRef: string): Promise<ProfileVersion[]> {
    return (await this.#signed<{ versions: ProfileVersion[] }>('GET', `/v1/profiles/${ref(profileRef)}/versions`)).versions;
  }

  /** A new version from whole files; profile.yaml's `version` must be new and higher. */
  addVersion(profileRef: string, files: { path: string; content_utf8: string }[]): Promise<AuthoredProfile> {
    return this.#signed<AuthoredProfile>('POST', `/v1/profiles/${ref(profileRef)}/versions`, { files });
  }

  updateFromSource(profileRef: string, input: UpdateFromSourceInput): Promise<UpdateFromSourceResult> {
    return this.#signed<UpdateFromSourceResult>('POST', `/v1/profiles/${ref(profileRef)}/update-from-source`, input);
  }

  publish(profileRef: string, input: PublishInput): Promise<PublishResult> {
    return this.#signed<PublishResult>('POST', `/v1/profiles/${ref(profileRef)}/publish`, input);
  }

  setTags(profileRef: string, tags: readonly string[]): Promise<{ profile_ref: string; tags: string[] }> {
    return this.#signed('PUT', `/v1/profiles/${ref(profileRef)}/tags`, { tags });
  }

  deleteProfile(profileRef: string): Promise<{ profile_ref: string; deleted_versions: string[] }> {
    return this.#signed('DELETE', `/v1/profiles/${ref(profileRef)}`);
  }

  // -------------------------------------------------------------- proposals

  /** Newest first. */
  proposals(filter: { status?: ProposalStatus; profile_ref?: string } = {}): Promise<Proposal[]> {
    return this.#signed<Proposal[]>('GET', `/v1/proposals${query({ status: filter.status, profile_ref: filter.profile_ref })}`);
  }

  approve(proposalId: string): Promise<Proposal> {
    return this.#signed<Proposal>('POST', `/v1/proposals/${ref(proposalId)}/approve`);
  }

  reject(proposalId: string): Promise<Proposal> {
    return this.#signed<Proposal>('POST', `/v1/proposals/${ref(proposalId)}/reject`);
  }

  // -------------------------------------------------------------- bindings and materialize

  bind(agentId: string, input: BindInput): Promise<Binding> {
    return this.#signed<Binding>('POST', `/v1/agents/${ref(agentId)}/profile-binding`, input);
  }

  async bindings(): Promise<Binding[]> {
    return (await this.#signed<{ bindings: Binding[] }>('GET', '/v1/profile-bindings')).bindings;
  }

  materialize(input: MaterializeInput): Promise<Materialized> {
    return this.#signed<Materialized>('POST', '/v1/materialize', input);
  }
}
