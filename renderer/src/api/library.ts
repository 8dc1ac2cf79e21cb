/**
 * The library surface (blueprints, the team's shelf of agent profiles, publishing, proposals,
 * bindings, materialize). The catalog reads are public; everything else is a team-signed request
 * (team-request.ts).
 */
// The wire contract (contract/library/) is written once, for the node and for this client, so the
// two cannot drift apart. Types only, so zod never enters the bundle.
import type * as Bindings from '../../../contract/library/bindings.ts';
import type * as Catalog from '../../../contract/library/catalog.ts';
import type * as Materialize from '../../../contract/library/materialize.ts';
import type * as Profiles from '../../../contract/library/profiles.ts';
import type * as Proposals from '../../../contract/library/proposals.ts';
import type * as Shelf from '../../../contract/library/shelf.ts';
import { fetchJson, query, trimSlash } from './http.ts';
import type { FetchLike } from './sse.ts';
import { sendSigned, type Method, type TeamSigner } from './team-request.ts';

// ---------------------------------------------------------------------------------------------
// Wire types: the contract's, for the Shelf's store, components and helpers
// ---------------------------------------------------------------------------------------------

export type * from '../../../contract/library/bindings.ts';
export type * from '../../../contract/library/catalog.ts';
export type * from '../../../contract/library/common.ts';
export type * from '../../../contract/library/materialize.ts';
export type * from '../../../contract/library/profiles.ts';
export type * from '../../../contract/library/proposals.ts';
export type * from '../../../contract/library/shelf.ts';

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
  catalog(tags: readonly string[] = []): Promise<Catalog.BlueprintSummary[]> {
    return this.#public<Catalog.BlueprintSummary[]>(`/v1/blueprints${query({ tags: tags.length ? tags : undefined })}`);
  }

  blueprint(blueprintRef: string, version?: string): Promise<Catalog.BlueprintDetail> {
    return this.#public<Catalog.BlueprintDetail>(`/v1/blueprints/${ref(blueprintRef)}${query({ version })}`);
  }

  /** Publishes a blueprint folder's payload as the team (a new ref, or a new version of one it owns). */
  importBlueprint(payload: Catalog.BlueprintImportPayload): Promise<Catalog.BlueprintImportResult> {
    return this.#signed<Catalog.BlueprintImportResult>('POST', '/v1/blueprints/import', payload);
  }

  /** Every version of a blueprint the team owns; shelf copies tracking it are detached. */
  deleteBlueprint(blueprintRef: string): Promise<Catalog.BlueprintDeleted> {
    return this.#signed<Catalog.BlueprintDeleted>('DELETE', `/v1/blueprints/${ref(blueprintRef)}`);
  }

  // -------------------------------------------------------------- the team's shelf

  /** One page of the shelf in profile_ref order, starting after `after` (the node allows 1-500 a page). */
  shelfPage(page: { limit: number; after?: string | null }): Promise<Shelf.ShelfPage> {
    return this.#signed<Shelf.ShelfPage>('GET', `/v1/shelf${query({ limit: String(page.limit), after: page.after ?? undefined })}`);
  }

  importProfile(input: Shelf.ShelfImportInput): Promise<Shelf.ShelfImportResult> {
    return this.#signed<Shelf.ShelfImportResult>('POST', '/v1/shelf/import', input);
  }

  /** A new profile made on the shelf (409 when the team already has one with that id). */
  createProfile(input: Profiles.CreateProfileInput): Promise<Profiles.AuthoredProfile> {
    return this.#signed<Profiles.AuthoredProfile>('POST', '/v1/profiles', input);
  }

  /** A profile at its latest (or the given) version, with its files and proposal digests. */
  profile(profileRef: string, version?: string): Promise<Profiles.ProfileWithFiles> {
    return this.#signed<Profiles.ProfileWithFiles>('GET', `/v1/profiles/${ref(profileRef)}${query({ include: 'files', version })}`);
  }

  /** Newest first. */
  async versions(profileRef: string): Promise<Profiles.ProfileVersion[]> {
    return (await this.#signed<Profiles.ProfileVersions>('GET', `/v1/profiles/${ref(profileRef)}/versions`)).versions;
  }

  /** A new version from whole files; profile.yaml's `version` must be new and higher. */
  addVersion(profileRef: string, files: Profiles.AddVersionInput['files']): Promise<Profiles.AuthoredProfile> {
    return this.#signed<Profiles.AuthoredProfile>('POST', `/v1/profiles/${ref(profileRef)}/versions`, { files });
  }

  updateFromSource(profileRef: string, input: Profiles.UpdateFromSourceInput): Promise<Profiles.UpdateFromSourceResult> {
    return this.#signed<Profiles.UpdateFromSourceResult>('POST', `/v1/profiles/${ref(profileRef)}/update-from-source`, input);
  }

  publish(profileRef: string, input: Profiles.PublishInput): Promise<Profiles.PublishResult> {
    return this.#signed<Profiles.PublishResult>('POST', `/v1/profiles/${ref(profileRef)}/publish`, input);
  }

  setTags(profileRef: string, tags: readonly string[]): Promise<Profiles.ProfileTags> {
    return this.#signed<Profiles.ProfileTags>('PUT', `/v1/profiles/${ref(profileRef)}/tags`, { tags });
  }

  deleteProfile(profileRef: string): Promise<Profiles.ProfileDeleted> {
    return this.#signed<Profiles.ProfileDeleted>('DELETE', `/v1/profiles/${ref(profileRef)}`);
  }

  // -------------------------------------------------------------- proposals

  /** Newest first. */
  proposals(filter: Proposals.ProposalFilter = {}): Promise<Proposals.Proposal[]> {
    return this.#signed<Proposals.Proposal[]>('GET', `/v1/proposals${query({ status: filter.status, profile_ref: filter.profile_ref })}`);
  }

  approve(proposalId: string): Promise<Proposals.Proposal> {
    return this.#signed<Proposals.Proposal>('POST', `/v1/proposals/${ref(proposalId)}/approve`);
  }

  reject(proposalId: string): Promise<Proposals.Proposal> {
    return this.#signed<Proposals.Proposal>('POST', `/v1/proposals/${ref(proposalId)}/reject`);
  }

  // -------------------------------------------------------------- bindings and materialize

  bind(agentId: string, input: Bindings.BindInput): Promise<Bindings.Binding> {
    return this.#signed<Bindings.Binding>('POST', `/v1/agents/${ref(agentId)}/profile-binding`, input);
  }

  async bindings(): Promise<Bindings.Binding[]> {
    return (await this.#signed<Bindings.BindingList>('GET', '/v1/profile-bindings')).bindings;
  }

  materialize(input: Materialize.MaterializeInput): Promise<Materialize.Materialized> {
    return this.#signed<Materialize.Materialized>('POST', '/v1/materialize', input);
  }
}
