/**
 * The Shelf: the chosen team's (stores/teams.ts) shelf of agent profiles, the public catalog, and
 * the selected profile with its versions, proposals and bindings; and authoring: new profiles, publishing a profile into the
 * catalog, importing a blueprint folder, deleting a blueprint the team owns. Every library call
 * goes through LibraryClient, signed by the node as the team's owner member.
 *
 * The shelf is read in pages (profile_ref order, the node's key), more as the list scrolls, so a
 * shelf of 100,000 profiles opens as fast as one of ten. It is live: the owner feed's nudges
 * (stores/live.ts) re-read what changed, whoever changed it (an agent's proposal or version,
 * another window, a publish).
 *
 * It also keeps the sidebar badge: open proposals across all teams, refreshed when the app
 * connects, when the window comes back into view, every minute, after each decision and on
 * every nudge about a team's library.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import { ApiError } from '../api/client.ts';
import type { CreateTeamInput, Team } from '../api/client.ts';
import { LibraryClient } from '../api/library.ts';
import type {
  AddVersionInput,
  AuthoredProfile,
  BindInput,
  Binding,
  BlueprintDeleted,
  BlueprintDetail,
  BlueprintImportPayload,
  BlueprintImportResult,
  BlueprintSummary,
  CreateProfileInput,
  Materialized,
  MaterializeInput,
  Proposal,
  ProfileVersion,
  ProfileWithFiles,
  PublishInput,
  PublishResult,
  ShelfImportResult,
  ShelfProfile,
  UpdateFromSourceInput,
  UpdateFromSourceResult,
} from '../api/library.ts';
import { usePagedList } from '../composables/usePagedList.ts';
import { errorMessage } from '../lib/format.ts';
import { catalogTags, ownedBlueprints, sortProposals } from '../lib/shelf.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';
import { useTeamsStore } from './teams.ts';

export type ShelfSelection = { kind: 'catalog' } | { kind: 'profile'; ref: string };

const BADGE_POLL_MS = 60_000;
/** Shelf rows read at first, and per further page (the node allows up to 500). */
const FIRST_PAGE = 200;
const PAGE = 500;
/** Nudges closer together than this are one refresh (a publish nudges twice, a burst of agents many times). */
const LIVE_COALESCE_MS = 150;

export const useShelfStore = defineStore('shelf', () => {
  const session = useSessionStore();

  // ------------------------------------------------------------------ teams (shared with Documents)

  const teamsStore = useTeamsStore();
  const teams = computed(() => teamsStore.teams);
  const teamsLoaded = computed(() => teamsStore.loaded);
  const teamsError = computed(() => teamsStore.error);
  const team = computed(() => teamsStore.team);
  const teamId = computed(() => teamsStore.teamId);

  /** team_id → its open proposals (the badge); `openProposals` holds the chosen team's. */
  const openCounts = ref<Record<string, number>>({});
  const openTotal = computed(() => Object.values(openCounts.value).reduce((sum, count) => sum + count, 0));
  const openProposals = ref<Proposal[]>([]);

  // ------------------------------------------------------------------ the chosen team's shelf

  // Paged in profile_ref order, more as the list scrolls (loadMore); a shelf can hold 100,000 rows.
  const list = usePagedList<ShelfProfile>({
    read: async (after, limit) => {
      const page = await library().shelfPage({ limit, after });
      return { items: page.profiles, hasMore: page.has_more, next: page.next_after };
    },
    key: (p) => p.profile_ref,
    pageSize: PAGE,
    firstPage: FIRST_PAGE,
  });
  const { items: profiles, hasMore, loadingMore, loaded: profilesLoaded, error: profilesError } = list;
  const bindings = ref<Binding[]>([]);
  const selection = ref<ShelfSelection | null>(null);

  // ------------------------------------------------------------------ the public catalog

  const blueprints = ref<BlueprintSummary[]>([]);
  const allTags = ref<string[]>([]);
  const tagFilter = ref<string[]>([]);
  const catalogLoaded = ref(false);
  const catalogLoading = ref(false);
  const catalogError = ref<string | null>(null);
  const blueprintDetails = ref<Record<string, BlueprintDetail>>({});
  /** A blueprint the catalog should open and scroll to when it shows it next ("Open in catalog"). */
  const catalogFocus = ref<string | null>(null);

  // ------------------------------------------------------------------ the selected profile

  const current = shallowRef<ProfileWithFiles | null>(null);
  const profileLoading = ref(false);
  const profileError = ref<string | null>(null);
  const versions = ref<ProfileVersion[]>([]);
  const proposals = ref<Proposal[]>([]);
  /** An older version whose files are shown instead of the latest. */
  const viewed = shallowRef<ProfileWithFiles | null>(null);
  const viewError = ref<string | null>(null);

  let shownTeam: string | null = null;
  let teamGeneration = 0;
  let profileGeneration = 0;
  let catalogGeneration = 0;

  const selectedRef = computed(() => (selection.value?.kind === 'profile' ? selection.value.ref : null));
  const selectedProfile = computed(() => profiles.value.find((p) => p.profile_ref === selectedRef.value) ?? null);

  /** The library as a team (the catalog reads need none). */
  function library(id: string | null = teamId.value): LibraryClient {
    const api = session.api();
    return new LibraryClient({
      libraryUrl: session.info?.library_url || api.coreUrl,
      teamId: id ?? '',
      fetch: (input, init) => window.fetch(input, init),
      sign: (request) => (id === null ? Promise.reject(new ApiError(0, 'No team is chosen: create one first.')) : api.signAsTeam(id, request)),
    });
  }

  const loadTeams = (): Promise<void> => teamsStore.load();
  const createTeam = (input: CreateTeamInput): Promise<Team> => teamsStore.create(input);
  const chooseTeam = (id: string): void => teamsStore.choose(id);

  /** The view opened: teams, then the chosen team's shelf (kept as it was when it is the same team). */
  async function open(): Promise<void> {
    await loadTeams();
    await showTeam(teamId.value);
  }

  let showing: { id: string | null; promise: Promise<void> } | null = null;

  /** Shows a team's shelf; another team starts from a clean slate. One load per team at a time. */
  function showTeam(id: string | null): Promise<void> {
    if (showing !== null && showing.id === id) return showing.promise;
    const promise = loadTeam(id).finally(() => {
      if (showing?.promise === promise) showing = null;
    });
    showing = { id, promise };
    return promise;
  }

  async function loadTeam(id: string | null): Promise<void> {
    if (id !== shownTeam) {
      shownTeam = id;
      teamGeneration++;
      list.reset();
      bindings.value = [];
      openProposals.value = [];
      selection.value = null;
      clearProfile();
    }
    if (id === null) return;
    await Promise.all([loadShelf(), loadBindings(), refreshOpen(id)]);
    if (selection.value === null && shownTeam === id) {
      const first = profiles.value[0];
      if (first !== undefined) await selectProfile(first.profile_ref);
      else selectCatalog();
    } else if (selectedRef.value !== null) {
      await loadProfile(selectedRef.value, true);
    }
  }

  /** The list read again from the start, as far as it had been read (at least the first page). */
  async function loadShelf(): Promise<void> {
    await list.load();
  }

  /** The next page of the list, when there is one and none is on its way. */
  function loadMore(): Promise<void> {
    return list.loadMore();
  }

  async function loadBindings(): Promise<void> {
    const mine = teamGeneration;
    try {
      const list = await library().bindings();
      if (mine === teamGeneration) bindings.value = list;
    } catch {
      // Bindings are shown as a hint; the Bind dialog says what failed when it matters.
    }
  }

  /** Reloads what is shown (the list's refresh button, and the window coming back): the teams too. */
  async function refresh(): Promise<void> {
    await loadTeams();
    if (teamId.value !== shownTeam) {
      await showTeam(teamId.value);
      return;
    }
    await reloadShown();
  }

  /** The shown team's shelf, bindings and proposals, the open profile and the catalog, read again. */
  async function reloadShown(): Promise<void> {
    if (shownTeam === null) return;
    await Promise.all([loadShelf(), loadBindings(), refreshOpen(shownTeam)]);
    if (selectedRef.value !== null) await loadProfile(selectedRef.value, true);
    if (selection.value?.kind === 'catalog') await loadCatalog();
  }

  // ------------------------------------------------------------------ live

  let liveTimer: ReturnType<typeof setTimeout> | undefined;
  let liveRunning: Promise<void> | null = null;
  let livePending = false;

  /** A nudge about the shown team's library: one re-read per burst, never two at once. */
  function scheduleLive(): void {
    clearTimeout(liveTimer);
    liveTimer = setTimeout(() => {
      if (liveRunning !== null) {
        livePending = true;
        return;
      }
      liveRunning = reloadShown().finally(() => {
        liveRunning = null;
        if (livePending) {
          livePending = false;
          scheduleLive();
        }
      });
    }, LIVE_COALESCE_MS);
  }

  /** The catalog changed: the catalog as shown, the blueprints opened in it, and the shelf's update markers. */
  async function onCatalogChanged(): Promise<void> {
    const opened = Object.keys(blueprintDetails.value);
    await Promise.all([
      catalogLoaded.value ? loadCatalog() : null,
      shownTeam === null ? null : loadShelf(),
      ...opened.map((blueprintRef) => loadBlueprint(blueprintRef).catch(() => forgetBlueprint(blueprintRef))),
    ]);
  }

  const live = useLiveStore();
  live.onChange((change) => {
    if (change.kind === 'library_changed' && change.teamId !== null) {
      if (change.teamId === shownTeam) scheduleLive();
      else if (teams.value.some((t) => t.team_id === change.teamId)) void refreshOpen(change.teamId);
    } else if (change.kind === 'catalog_changed') {
      void onCatalogChanged();
    }
  });
  // Nothing is replayed across a reconnect: what changed meanwhile is read again.
  live.onOpen(() => {
    if (shownTeam !== null) scheduleLive();
  });

  // ------------------------------------------------------------------ badge

  /** Open proposals of one team (and the chosen team's list, for the per-profile counts). */
  async function refreshOpen(id: string): Promise<void> {
    try {
      const open = await library(id).proposals({ status: 'open' });
      openCounts.value = { ...openCounts.value, [id]: open.length };
      if (id === teamId.value) openProposals.value = open;
    } catch {
      // The badge is a hint; the Proposals tab says what failed.
    }
  }

  async function refreshBadge(): Promise<void> {
    await loadTeams();
    const known = new Set(teams.value.map((t) => t.team_id));
    openCounts.value = Object.fromEntries(Object.entries(openCounts.value).filter(([id]) => known.has(id)));
    await Promise.all(teams.value.map((t) => refreshOpen(t.team_id)));
  }

  let badgeTimer: ReturnType<typeof setInterval> | undefined;
  const onVisible = (): void => {
    if (document.visibilityState === 'visible') void refreshBadge();
  };

  function startBadge(): void {
    stopBadge();
    void refreshBadge();
    badgeTimer = setInterval(() => {
      if (document.visibilityState === 'visible') void refreshBadge();
    }, BADGE_POLL_MS);
    document.addEventListener('visibilitychange', onVisible);
  }

  function stopBadge(): void {
    clearInterval(badgeTimer);
    badgeTimer = undefined;
    document.removeEventListener('visibilitychange', onVisible);
  }

  // ------------------------------------------------------------------ catalog

  /** Shows the catalog; with `focus`, opened at that blueprint (the tag filter cleared if it hides it). */
  function selectCatalog(focus: string | null = null): void {
    selection.value = { kind: 'catalog' };
    clearProfile();
    catalogFocus.value = focus;
    if (focus !== null && tagFilter.value.length > 0 && !blueprints.value.some((b) => b.blueprint_ref === focus)) {
      tagFilter.value = [];
      void loadCatalog();
    } else if (!catalogLoaded.value) void loadCatalog();
  }

  async function loadCatalog(): Promise<void> {
    const mine = ++catalogGeneration;
    catalogLoading.value = true;
    const filter = [...tagFilter.value];
    try {
      const client = library();
      // The tag chips come from the whole catalog, whatever the filter shows.
      const [list, all] = await Promise.all([client.catalog(filter), filter.length ? client.catalog() : null]);
      if (mine !== catalogGeneration) return;
      blueprints.value = list;
      allTags.value = catalogTags(all ?? list);
      catalogError.value = null;
    } catch (error) {
      if (mine === catalogGeneration) catalogError.value = errorMessage(error);
    } finally {
      if (mine === catalogGeneration) {
        catalogLoaded.value = true;
        catalogLoading.value = false;
      }
    }
  }

  async function toggleTag(tag: string): Promise<void> {
    tagFilter.value = tagFilter.value.includes(tag) ? tagFilter.value.filter((t) => t !== tag) : [...tagFilter.value, tag].sort();
    await loadCatalog();
  }

  async function clearTags(): Promise<void> {
    tagFilter.value = [];
    await loadCatalog();
  }

  async function loadBlueprint(blueprintRef: string): Promise<BlueprintDetail> {
    const detail = await library().blueprint(blueprintRef);
    blueprintDetails.value = { ...blueprintDetails.value, [blueprintRef]: detail };
    return detail;
  }

  function forgetBlueprint(blueprintRef: string): void {
    const details = { ...blueprintDetails.value };
    delete details[blueprintRef];
    blueprintDetails.value = details;
  }

  /** The blueprints the chosen team owns, from the whole catalog (whatever the tag filter shows). */
  async function loadOwnedBlueprints(): Promise<BlueprintSummary[]> {
    return ownedBlueprints(await library().catalog(), teamId.value);
  }

  /** Publishes a blueprint folder's payload; the catalog then shows it. */
  async function importBlueprint(payload: BlueprintImportPayload): Promise<BlueprintImportResult> {
    const result = await library().importBlueprint(payload);
    await loadCatalog();
    return result;
  }

  /** Deletes a blueprint the team owns; shelf copies that tracked it stand on their own from now on. */
  async function deleteBlueprint(blueprintRef: string): Promise<BlueprintDeleted> {
    const result = await library().deleteBlueprint(blueprintRef);
    forgetBlueprint(blueprintRef);
    await Promise.all([loadCatalog(), loadShelf()]);
    if (selectedRef.value !== null) await loadProfile(selectedRef.value, true);
    return result;
  }

  async function importProfile(blueprintRef: string, profileRef: string): Promise<ShelfImportResult> {
    const result = await library().importProfile({ source_blueprint_ref: blueprintRef, profile_ref: profileRef });
    await loadShelf();
    return result;
  }

  // ------------------------------------------------------------------ the selected profile

  function clearProfile(): void {
    profileGeneration++;
    current.value = null;
    versions.value = [];
    proposals.value = [];
    viewed.value = null;
    viewError.value = null;
    profileError.value = null;
    profileLoading.value = false;
  }

  async function selectProfile(profileRef: string): Promise<void> {
    if (selectedRef.value === profileRef && current.value?.profile_ref === profileRef) return;
    selection.value = { kind: 'profile', ref: profileRef };
    clearProfile();
    await loadProfile(profileRef);
  }

  /** The latest version with its files, every version, and the profile's proposals. */
  async function loadProfile(profileRef: string, quiet = false): Promise<void> {
    const mine = ++profileGeneration;
    if (!quiet) profileLoading.value = true;
    try {
      const client = library();
      const [profile, versionList, proposalList] = await Promise.all([
        client.profile(profileRef),
        client.versions(profileRef),
        client.proposals({ profile_ref: profileRef }),
      ]);
      if (mine !== profileGeneration) return;
      current.value = profile;
      versions.value = versionList;
      proposals.value = sortProposals(proposalList);
      profileError.value = null;
    } catch (error) {
      if (mine === profileGeneration) profileError.value = errorMessage(error);
    } finally {
      if (mine === profileGeneration) profileLoading.value = false;
    }
  }

  /** Shows an older version's files (null: back to the latest). */
  async function viewVersion(version: string | null): Promise<void> {
    viewError.value = null;
    const profileRef = selectedRef.value;
    if (version === null || profileRef === null || version === current.value?.version) {
      viewed.value = null;
      return;
    }
    const mine = profileGeneration;
    try {
      const profile = await library().profile(profileRef, version);
      if (mine === profileGeneration) viewed.value = profile;
    } catch (error) {
      if (mine === profileGeneration) viewError.value = errorMessage(error);
    }
  }

  /** A version with its files, without showing it (the base a decided proposal was made on). */
  function profileAt(profileRef: string, version: string): Promise<ProfileWithFiles> {
    return library().profile(profileRef, version);
  }

  /** After a change to the selected profile: it, the shelf row and the badge. */
  async function afterChange(profileRef: string): Promise<void> {
    viewed.value = null;
    const id = teamId.value;
    await Promise.all([loadProfile(profileRef, true), loadShelf(), id === null ? null : refreshOpen(id)]);
  }

  async function addVersion(profileRef: string, files: AddVersionInput['files']): Promise<AuthoredProfile> {
    const saved = await library().addVersion(profileRef, files);
    await afterChange(profileRef);
    return saved;
  }

  async function updateFromSource(profileRef: string, input: UpdateFromSourceInput): Promise<UpdateFromSourceResult> {
    const result = await library().updateFromSource(profileRef, input);
    await afterChange(profileRef);
    return result;
  }

  /** A profile made on the shelf (a starter profile.yaml and instructions.md), then opened. */
  async function createProfile(input: CreateProfileInput): Promise<AuthoredProfile> {
    const created = await library().createProfile(input);
    await loadShelf();
    await selectProfile(created.profile_ref);
    return created;
  }

  /** Publishes a version of a shelf profile into the public catalog; the catalog is reloaded to show it. */
  async function publish(profileRef: string, input: PublishInput): Promise<PublishResult> {
    const result = await library().publish(profileRef, input);
    await loadCatalog();
    return result;
  }

  async function setTags(profileRef: string, tags: string[]): Promise<void> {
    const saved = await library().setTags(profileRef, tags);
    profiles.value = profiles.value.map((p) => (p.profile_ref === profileRef ? { ...p, tags: saved.tags } : p));
    if (current.value?.profile_ref === profileRef) current.value = { ...current.value, tags: saved.tags };
  }

  async function deleteProfile(profileRef: string): Promise<void> {
    await library().deleteProfile(profileRef);
    clearProfile();
    selection.value = null;
    const id = teamId.value;
    await Promise.all([loadShelf(), loadBindings(), id === null ? null : refreshOpen(id)]);
    const first = profiles.value[0];
    if (first !== undefined) await selectProfile(first.profile_ref);
    else selectCatalog();
  }

  /**
   * Approves a proposal (minting the next patch version). When it fails the proposals are
   * reloaded either way: a stale base makes the node reject the proposal in the same step.
   */
  async function approve(proposalId: string): Promise<Proposal> {
    const profileRef = selectedRef.value;
    try {
      return await library().approve(proposalId);
    } finally {
      if (profileRef !== null) await afterChange(profileRef);
    }
  }

  async function reject(proposalId: string): Promise<Proposal> {
    const profileRef = selectedRef.value;
    try {
      return await library().reject(proposalId);
    } finally {
      if (profileRef !== null) await afterChange(profileRef);
    }
  }

  async function bind(agentId: string, input: BindInput): Promise<Binding> {
    const binding = await library().bind(agentId, input);
    await loadBindings();
    return binding;
  }

  function materialize(input: MaterializeInput): Promise<Materialized> {
    return library().materialize(input);
  }

  return {
    teams,
    teamsLoaded,
    teamsError,
    team,
    teamId,
    openCounts,
    openTotal,
    openProposals,
    profiles,
    hasMore,
    loadingMore,
    loadMore,
    profilesLoaded,
    profilesError,
    bindings,
    selection,
    selectedRef,
    selectedProfile,
    blueprints,
    allTags,
    tagFilter,
    catalogLoaded,
    catalogLoading,
    catalogError,
    blueprintDetails,
    catalogFocus,
    current,
    profileLoading,
    profileError,
    versions,
    proposals,
    viewed,
    viewError,
    loadTeams,
    createTeam,
    chooseTeam,
    open,
    showTeam,
    refresh,
    refreshBadge,
    startBadge,
    stopBadge,
    selectCatalog,
    loadCatalog,
    toggleTag,
    clearTags,
    loadBlueprint,
    loadOwnedBlueprints,
    importBlueprint,
    deleteBlueprint,
    importProfile,
    selectProfile,
    loadProfile,
    viewVersion,
    profileAt,
    addVersion,
    createProfile,
    publish,
    updateFromSource,
    setTags,
    deleteProfile,
    approve,
    reject,
    bind,
    materialize,
  };
});
