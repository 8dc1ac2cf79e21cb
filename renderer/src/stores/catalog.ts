/**
 * The public catalog the Shelf shows beside the team's shelf: the latest version of every
 * blueprint (filtered by tags on the node; the tag chips come from the whole catalog), the
 * blueprints opened in it with their details, and publishing a blueprint folder into it. It is
 * live: a `catalog_changed` nudge re-reads the catalog as shown and the blueprints opened in it
 * (the shelf, stores/shelf.ts, re-reads its update markers).
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { BlueprintDetail, BlueprintImportPayload, BlueprintImportResult, BlueprintSummary } from '../api/library.ts';
import { useLibrary } from '../composables/useLibrary.ts';
import { errorMessage } from '../lib/format.ts';
import { catalogTags, ownedBlueprints } from '../lib/shelf.ts';
import { useLiveStore } from './live.ts';
import { useTeamsStore } from './teams.ts';

export const useCatalogStore = defineStore('catalog', () => {
  const teams = useTeamsStore();
  const library = useLibrary();

  const blueprints = ref<BlueprintSummary[]>([]);
  const allTags = ref<string[]>([]);
  const tagFilter = ref<string[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const error = ref<string | null>(null);
  const details = ref<Record<string, BlueprintDetail>>({});
  /** A blueprint the catalog should open and scroll to when it shows it next ("Open in catalog"). */
  const focus = ref<string | null>(null);

  let generation = 0;

  /** The catalog is shown; with `at`, opened at that blueprint (the tag filter cleared if it hides it). */
  function show(at: string | null): void {
    focus.value = at;
    if (at !== null && tagFilter.value.length > 0 && !blueprints.value.some((b) => b.blueprint_ref === at)) {
      tagFilter.value = [];
      void load();
    } else if (!loaded.value) void load();
  }

  async function load(): Promise<void> {
    const mine = ++generation;
    loading.value = true;
    const filter = [...tagFilter.value];
    try {
      const client = library();
      // The tag chips come from the whole catalog, whatever the filter shows.
      const [list, all] = await Promise.all([client.catalog(filter), filter.length ? client.catalog() : null]);
      if (mine !== generation) return;
      blueprints.value = list;
      allTags.value = catalogTags(all ?? list);
      error.value = null;
    } catch (failure) {
      if (mine === generation) error.value = errorMessage(failure);
    } finally {
      if (mine === generation) {
        loaded.value = true;
        loading.value = false;
      }
    }
  }

  async function toggleTag(tag: string): Promise<void> {
    tagFilter.value = tagFilter.value.includes(tag) ? tagFilter.value.filter((t) => t !== tag) : [...tagFilter.value, tag].sort();
    await load();
  }

  async function clearTags(): Promise<void> {
    tagFilter.value = [];
    await load();
  }

  async function loadBlueprint(blueprintRef: string): Promise<BlueprintDetail> {
    const detail = await library().blueprint(blueprintRef);
    details.value = { ...details.value, [blueprintRef]: detail };
    return detail;
  }

  function forgetBlueprint(blueprintRef: string): void {
    const next = { ...details.value };
    delete next[blueprintRef];
    details.value = next;
  }

  /** The blueprints the chosen team owns, from the whole catalog (whatever the tag filter shows). */
  async function loadOwned(): Promise<BlueprintSummary[]> {
    return ownedBlueprints(await library().catalog(), teams.teamId);
  }

  /** Publishes a blueprint folder's payload; the catalog then shows it. */
  async function importBlueprint(payload: BlueprintImportPayload): Promise<BlueprintImportResult> {
    const result = await library().importBlueprint(payload);
    await load();
    return result;
  }

  /** The catalog changed: the catalog as shown, and the blueprints opened in it. */
  async function onChanged(): Promise<void> {
    const opened = Object.keys(details.value);
    await Promise.all([loaded.value ? load() : null, ...opened.map((blueprintRef) => loadBlueprint(blueprintRef).catch(() => forgetBlueprint(blueprintRef)))]);
  }

  useLiveStore().onChange((change) => {
    if (change.kind === 'catalog_changed') void onChanged();
  });

  return {
    blueprints,
    allTags,
    tagFilter,
    loaded,
    loading,
    error,
    details,
    focus,
    show,
    load,
    toggleTag,
    clearTags,
    loadBlueprint,
    forgetBlueprint,
    loadOwned,
    importBlueprint,
  };
});
