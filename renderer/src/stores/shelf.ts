/**
 * The Shelf: the chosen team's (stores/teams.ts) shelf of agent profiles, what is selected (the
 * public catalog, stores/catalog.ts, or a profile), and the selected profile with its versions,
 * proposals and bindings; and authoring: new profiles, publishing a profile into the catalog,
 * deleting a blueprint the team owns. Every library call goes through LibraryClient
 * (composables/useLibrary.ts), signed by the node as the team's owner member.
 *
 * It is live: the owner feed's nudges (stores/live.ts) re-read what changed, whoever changed it
 * (an agent's proposal or version, another window, a publish).
 *
 * This store says which team is shown and what is selected, and authors; the rest is in
 * composables beside the others, whose state and functions it returns as its own: the list read in
 * pages (useShelfList.ts), the bindings (useShelfBindings.ts), the selected profile's versions,
 * proposals and viewed version (useShelfProfile.ts), and deciding its proposals
 * (useShelfDecisions.ts). The sidebar badge of open proposals is its own store
 * (stores/proposal-badge.ts); the shelf reads the shown team's proposals again with the rest of it.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type {
  AddVersionInput,
  AuthoredProfile,
  BlueprintDeleted,
  CreateProfileInput,
  PublishInput,
  PublishResult,
  ShelfImportResult,
  UpdateFromSourceInput,
  UpdateFromSourceResult,
} from '../api/library.ts';
import { useLibrary } from '../composables/useLibrary.ts';
import { useShelfBindings } from '../composables/useShelfBindings.ts';
import { useShelfDecisions } from '../composables/useShelfDecisions.ts';
import { useShelfList } from '../composables/useShelfList.ts';
import { useShelfProfile } from '../composables/useShelfProfile.ts';
import { coalesce } from '../lib/coalesce.ts';
import { useCatalogStore } from './catalog.ts';
import { useLiveStore } from './live.ts';
import { useProposalBadgeStore } from './proposal-badge.ts';
import { useTeamsStore } from './teams.ts';

export type ShelfSelection = { kind: 'catalog' } | { kind: 'profile'; ref: string };

/** Nudges closer together than this are one refresh (a publish nudges twice, a burst of agents many times). */
const LIVE_COALESCE_MS = 150;

export const useShelfStore = defineStore('shelf', () => {
  const teams = useTeamsStore();
  const catalog = useCatalogStore();
  const badge = useProposalBadgeStore();
  const library = useLibrary();

  // ------------------------------------------------------------------ the chosen team's shelf

  const { profiles, hasMore, loadingMore, profilesLoaded, profilesError, loadShelf, loadMore, patchRow, resetList } = useShelfList(() => library());
  const { bindings, clearBindings, loadBindings, bind, materialize } = useShelfBindings(() => library());
  const selection = ref<ShelfSelection | null>(null);

  // ------------------------------------------------------------------ the selected profile

  // Read by composables/useShelfProfile.ts; which profile is selected is this store's.
  const profile = useShelfProfile(() => library());
  const { current, profileLoading, profileError, versions, proposals, viewed, viewError, clearProfile, loadProfile } = profile;

  let shownTeam: string | null = null;

  const selectedRef = computed(() => (selection.value?.kind === 'profile' ? selection.value.ref : null));
  const selectedProfile = computed(() => profiles.value.find((p) => p.profile_ref === selectedRef.value) ?? null);

  /** The view opened: teams, then the chosen team's shelf (kept as it was when it is the same team). */
  async function open(): Promise<void> {
    await teams.load();
    await showTeam(teams.teamId);
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
      resetList();
      clearBindings();
      badge.show(id);
      selection.value = null;
      clearProfile();
    }
    if (id === null) return;
    await Promise.all([loadShelf(), loadBindings(), badge.refresh(id)]);
    if (selection.value === null && shownTeam === id) {
      const first = profiles.value[0];
      if (first !== undefined) await selectProfile(first.profile_ref);
      else selectCatalog();
    } else if (selectedRef.value !== null) {
      await loadProfile(selectedRef.value, true);
    }
  }

  /** Reloads what is shown (the list's refresh button, and the window coming back): the teams too. */
  async function refresh(): Promise<void> {
    await teams.load();
    if (teams.teamId !== shownTeam) {
      await showTeam(teams.teamId);
      return;
    }
    await reloadShown();
  }

  /** The shown team's shelf, bindings and proposals, the open profile and the catalog, read again. */
  async function reloadShown(): Promise<void> {
    if (shownTeam === null) return;
    await Promise.all([loadShelf(), loadBindings(), badge.refresh(shownTeam)]);
    if (selectedRef.value !== null) await loadProfile(selectedRef.value, true);
    if (selection.value?.kind === 'catalog') await catalog.load();
  }

  // ------------------------------------------------------------------ live

  /** Nudges about the shown team's library: one re-read per burst, never two at once. */
  const scheduleLive = coalesce(reloadShown, LIVE_COALESCE_MS);

  const live = useLiveStore();
  live.onChange((change) => {
    if (change.kind === 'library_changed' && change.teamId !== null && change.teamId === shownTeam) scheduleLive();
    // The catalog store re-reads the catalog; the shelf's update markers come with the shelf.
    else if (change.kind === 'catalog_changed' && shownTeam !== null) void loadShelf();
  });
  // Nothing is replayed across a reconnect: what changed meanwhile is read again.
  live.onOpen(() => {
    if (shownTeam !== null) scheduleLive();
  });

  // ------------------------------------------------------------------ catalog

  /** Shows the catalog; with `focus`, opened at that blueprint (the tag filter cleared if it hides it). */
  function selectCatalog(focus: string | null = null): void {
    selection.value = { kind: 'catalog' };
    clearProfile();
    catalog.show(focus);
  }

  /** Deletes a blueprint the team owns; shelf copies that tracked it stand on their own from now on. */
  async function deleteBlueprint(blueprintRef: string): Promise<BlueprintDeleted> {
    const result = await library().deleteBlueprint(blueprintRef);
    catalog.forgetBlueprint(blueprintRef);
    await Promise.all([catalog.load(), loadShelf()]);
    if (selectedRef.value !== null) await loadProfile(selectedRef.value, true);
    return result;
  }

  async function importProfile(blueprintRef: string, profileRef: string): Promise<ShelfImportResult> {
    const result = await library().importProfile({ source_blueprint_ref: blueprintRef, profile_ref: profileRef });
    await loadShelf();
    return result;
  }

  // ------------------------------------------------------------------ the selected profile

  async function selectProfile(profileRef: string): Promise<void> {
    if (selectedRef.value === profileRef && current.value?.profile_ref === profileRef) return;
    selection.value = { kind: 'profile', ref: profileRef };
    clearProfile();
    await loadProfile(profileRef);
  }

  /** Shows an older version's files of the selected profile (null: back to the latest). */
  function viewVersion(version: string | null): Promise<void> {
    return profile.viewVersion(selectedRef.value, version);
  }

  /** After a change to the selected profile: it, the shelf row and the badge. */
  async function afterChange(profileRef: string): Promise<void> {
    profile.showLatest();
    const id = teams.teamId;
    await Promise.all([loadProfile(profileRef, true), loadShelf(), id === null ? null : badge.refresh(id)]);
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
    await catalog.load();
    return result;
  }

  async function setTags(profileRef: string, tags: string[]): Promise<void> {
    const saved = await library().setTags(profileRef, tags);
    patchRow(profileRef, { tags: saved.tags });
    if (current.value?.profile_ref === profileRef) current.value = { ...current.value, tags: saved.tags };
  }

  async function deleteProfile(profileRef: string): Promise<void> {
    await library().deleteProfile(profileRef);
    clearProfile();
    selection.value = null;
    const id = teams.teamId;
    await Promise.all([loadShelf(), loadBindings(), id === null ? null : badge.refresh(id)]);
    const first = profiles.value[0];
    if (first !== undefined) await selectProfile(first.profile_ref);
    else selectCatalog();
  }

  const { approve, reject } = useShelfDecisions({ library: () => library(), selectedRef, afterChange });

  return {
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
    current,
    profileLoading,
    profileError,
    versions,
    proposals,
    viewed,
    viewError,
    open,
    showTeam,
    refresh,
    selectCatalog,
    deleteBlueprint,
    importProfile,
    selectProfile,
    loadProfile,
    viewVersion,
    profileAt: profile.profileAt,
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
