/**
 * Documents: the chosen team's (stores/teams.ts) versioned Markdown documents, the one open in
 * the editor, and its local draft. Every keystroke is kept as a draft in the window's storage
 * (lib/drafts.ts) until it is saved as a new version, so closing the window, a failed save or an
 * unreachable node loses nothing; a document can even be started while the node is unreachable
 * and is created on the node by its first save. Every call goes through DocsClient, signed by the
 * node as the team's owner member; writes name the identity chosen in the switcher
 * (composables/useDocs.ts). This store holds the open document and its draft; the list is
 * composables/useDocumentList.ts, saving and a save refused as stale
 * composables/useDocumentSaving.ts, the open document's history
 * composables/useDocumentHistory.ts. Documents changed elsewhere arrive as `docs_changed` nudges.
 */
import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef } from 'vue';
import { ApiError } from '../api/errors.ts';
import type { DocumentDetail, TemplateRequest } from '../api/docs.ts';
import { useDocs } from '../composables/useDocs.ts';
import { useDocumentHistory } from '../composables/useDocumentHistory.ts';
import { useDocumentList } from '../composables/useDocumentList.ts';
import { useDocumentSaving, type SaveState } from '../composables/useDocumentSaving.ts';
import { DraftStore } from '../lib/drafts.ts';
import { errorMessage } from '../lib/format.ts';
import { useDocsThemeStore } from './docs-theme.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';
import { useTeamsStore } from './teams.ts';

/** How long typing may pause before the draft is written (also written on window close). */
const DRAFT_DELAY_MS = 250;

export type { SaveState } from '../composables/useDocumentSaving.ts';

export const useDocumentsStore = defineStore('documents', () => {
  const session = useSessionStore();
  const teams = useTeamsStore();
  /** The documents as the chosen team, or `shownTeam`; writes name the identity the app acts as. */
  const docs = useDocs();
  let shownTeam: string | null = null;

  const draftStore = computed(() => new DraftStore(window.localStorage, session.info?.docs_url ?? window.location.origin));
  const {
    query,
    documents,
    loaded,
    listError,
    hasMore,
    total,
    drafts,
    rows,
    readDrafts,
    loadList,
    loadMore,
    search,
    reset: resetList,
  } = useDocumentList({
    team: () => shownTeam,
    client: () => docs(shownTeam),
    drafts: () => draftStore.value,
  });

  const selectedSlug = ref<string | null>(null);
  /** The open document as the node has it (null for a draft not yet created). */
  const current = shallowRef<DocumentDetail | null>(null);
  const loading = ref(false);
  const loadError = ref<string | null>(null);
  /** What the editor shows. */
  const text = ref('');
  const title = ref('');
  /** The version the editor's text started from (null: not yet created on the node). */
  const baseVersion = ref<number | null>(null);
  const saveState = ref<SaveState>('saved');
  const saveError = ref<string | null>(null);
  /** The draft could not be written (storage full): typing is not safe across a close. */
  const draftWarning = ref<string | null>(null);
  /**
   * The editor's text is the open document's (its draft, or the node's version): until then there
   * is nothing of the person's to keep, an empty editor must never be kept as a draft, and the
   * editor takes no typing (it would be replaced when the document arrives).
   */
  const ready = ref(false);
  /** Bumped by every change made elsewhere to the shown team's documents, links or theme (views re-read). */
  const changes = ref(0);

  const {
    versions,
    loadVersions,
    versionBody,
    clear: clearHistory,
  } = useDocumentHistory({
    selectedSlug,
    current,
    team: () => shownTeam,
    client: () => docs(shownTeam),
  });
  let draftTimer: ReturnType<typeof setTimeout> | undefined;

  /** The node's newest version is newer than the one the editor started from. */
  const behind = computed(() => current.value !== null && baseVersion.value !== null && current.value.current_version > baseVersion.value);
  /** Something typed is not in the node's current version (or the document is not on the node yet). */
  const dirty = computed(() => baseVersion.value === null || current.value === null || text.value !== current.value.body);
  const { save } = useDocumentSaving({
    team: () => shownTeam,
    client: (team) => docs(team),
    drafts: () => draftStore.value,
    selectedSlug,
    current,
    text,
    title,
    baseVersion,
    saveState,
    saveError,
    ready,
    dirty,
    flushDraft,
    readDrafts,
    loadList,
    loadVersions,
  });

  // ------------------------------------------------------------------ the list

  async function open(): Promise<void> {
    await teams.load();
    await showTeam(teams.teamId);
  }

  async function showTeam(id: string | null): Promise<void> {
    if (id !== shownTeam) {
      flushDraft();
      shownTeam = id;
      resetList();
      clearSelection();
    }
    if (id === null) return;
    readDrafts();
    await loadList();
    if (selectedSlug.value === null) {
      const first = rows.value[0];
      if (first !== undefined) await select(first.slug);
    }
  }

  // ------------------------------------------------------------------ the open document

  function clearSelection(): void {
    ready.value = false;
    selectedSlug.value = null;
    current.value = null;
    text.value = '';
    title.value = '';
    baseVersion.value = null;
    clearHistory();
    saveState.value = 'saved';
    saveError.value = null;
    loadError.value = null;
  }

  /** Opens a document: its draft when there is one, else its current version. */
  async function select(slug: string): Promise<void> {
    flushDraft();
    clearSelection();
    selectedSlug.value = slug;
    const team = shownTeam;
    const draft = team === null ? null : draftStore.value.get(team, slug);
    if (draft !== null) {
      text.value = draft.body;
      title.value = draft.title;
      baseVersion.value = draft.baseVersion;
      saveState.value = 'unsaved';
      ready.value = true;
    }
    if (draft?.baseVersion === null) return;
    loading.value = true;
    try {
      const detail = await docs(team).get(slug);
      if (selectedSlug.value !== slug) return;
      current.value = detail;
      if (draft !== null && draft.body === detail.body) {
        // A draft that reads as the latest version is no draft: nothing is left to save.
        if (team !== null) draftStore.value.remove(team, slug);
        readDrafts();
        baseVersion.value = detail.current_version;
        saveState.value = 'saved';
      } else if (draft === null) {
        text.value = detail.body;
        title.value = detail.title;
        baseVersion.value = detail.current_version;
        ready.value = true;
      }
      void loadVersions();
    } catch (error) {
      if (selectedSlug.value === slug) loadError.value = errorMessage(error);
      if (error instanceof ApiError && error.status === 0 && draft !== null) saveState.value = 'offline';
    } finally {
      loading.value = false;
    }
  }

  // ------------------------------------------------------------------ typing and drafts

  /**
   * The editor changed: kept as a draft shortly after typing pauses. Typed back to the latest
   * version's text, there is nothing to save (and the text stands on that version).
   */
  function edit(next: string): void {
    if (next === text.value) return;
    text.value = next;
    if (dirty.value) {
      saveState.value = 'unsaved';
    } else {
      saveState.value = 'saved';
      saveError.value = null;
      if (current.value !== null) baseVersion.value = current.value.current_version;
    }
    clearTimeout(draftTimer);
    draftTimer = setTimeout(flushDraft, DRAFT_DELAY_MS);
  }

  /**
   * Takes a merge of the draft with the latest version (components/documents/MergeDialog.vue)
   * into the editor: the text now stands on the latest version, to be saved over it.
   */
  function applyMerge(merged: string): void {
    if (current.value === null) return;
    baseVersion.value = current.value.current_version;
    text.value = merged;
    saveError.value = null;
    saveState.value = dirty.value ? 'unsaved' : 'saved';
    flushDraft();
  }

  /** Writes the open document's draft now (also on window close); removes it when nothing is unsaved. */
  function flushDraft(): void {
    clearTimeout(draftTimer);
    draftTimer = undefined;
    const slug = selectedSlug.value;
    if (shownTeam === null || slug === null || !ready.value) return;
    if (!dirty.value) {
      draftStore.value.remove(shownTeam, slug);
    } else {
      const kept = draftStore.value.put({
        teamId: shownTeam,
        slug,
        baseVersion: baseVersion.value,
        title: title.value,
        body: text.value,
        updatedAt: new Date().toISOString(),
      });
      draftWarning.value = kept ? null : 'This browser’s storage is full: unsaved changes would be lost if the window closed. Save now.';
    }
    readDrafts();
  }

  /** Drops the local changes and shows the node's current version again. */
  async function discardDraft(): Promise<void> {
    const slug = selectedSlug.value;
    if (shownTeam === null || slug === null) return;
    clearTimeout(draftTimer);
    draftStore.value.remove(shownTeam, slug);
    const saved = current.value;
    clearSelection();
    readDrafts();
    const next = saved === null ? rows.value[0]?.slug : slug;
    if (next !== undefined) await select(next);
  }

  /** Takes an older version's text into the editor, to be saved as a new version. */
  async function restore(n: number): Promise<void> {
    edit(await versionBody(n));
    flushDraft();
  }

  // ------------------------------------------------------------------ new documents

  /**
   * Creates a document on the node from Markdown or a template and opens it. From Markdown while
   * the node can't be reached, it starts as a local draft that the first save creates.
   */
  async function create(input: { slug: string; title: string } & ({ body: string } | { template: TemplateRequest })): Promise<{ offline: boolean }> {
    const team = shownTeam;
    if (team === null) throw new ApiError(0, 'No team is chosen: create one first.');
    try {
      const created = await docs(team).create(input);
      await loadList();
      await select(created.slug);
      return { offline: false };
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 0 && 'body' in input)) throw error;
      draftStore.value.put({ teamId: team, slug: input.slug, baseVersion: null, title: input.title, body: input.body, updatedAt: new Date().toISOString() });
      readDrafts();
      await select(input.slug);
      saveState.value = 'offline';
      return { offline: true };
    }
  }

  // ------------------------------------------------------------------ live

  /**
   * Someone else changed the team's documents or theme: the list, the theme's previews, and the
   * open document unless it has local edits.
   */
  async function onChanged(teamId: string | null): Promise<void> {
    if (teamId !== shownTeam || shownTeam === null) return;
    changes.value++;
    void useDocsThemeStore().check(docs(shownTeam), shownTeam);
    await loadList();
    const slug = selectedSlug.value;
    if (slug === null || current.value === null) return;
    // The open document may sit on a page not read again: ask for it then.
    const listed =
      documents.value.find((d) => d.slug === slug) ??
      (await docs(shownTeam)
        .get(slug)
        .catch(() => undefined));
    // Another document may have opened, or this one closed, during the await; the types do not see that.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    if (selectedSlug.value !== slug || current.value === null) return;
    if (listed === undefined || listed.current_version === current.value.current_version) return;
    // In place, not re-opened: the history and preview stay on screen while the new version loads.
    const detail = await docs(shownTeam).get(slug);
    if (selectedSlug.value !== slug) return;
    current.value = detail;
    if (saveState.value === 'saved') {
      text.value = detail.body;
      title.value = detail.title;
      baseVersion.value = detail.current_version;
    }
    // Otherwise the typing stays; `behind` tells the editor a newer version exists.
    void loadVersions();
  }

  let stopLive: (() => void) | null = null;
  function startLive(): void {
    stopLive?.();
    const live = useLiveStore();
    stopLive = live.onChange((change) => {
      if (change.kind === 'docs_changed') void onChanged(change.teamId);
    });
  }

  return {
    documents,
    loaded,
    listError,
    total,
    query,
    hasMore,
    drafts,
    rows,
    selectedSlug,
    current,
    loading,
    /** Whether the editor may take typing: the open document's text (its draft, or the node's) is in. */
    editable: readonly(ready),
    loadError,
    text,
    title,
    baseVersion,
    saveState,
    saveError,
    draftWarning,
    versions,
    changes,
    behind,
    dirty,
    docs,
    open,
    showTeam,
    loadList,
    loadMore,
    search,
    select,
    versionBody,
    edit,
    flushDraft,
    discardDraft,
    restore,
    applyMerge,
    save,
    create,
    startLive,
  };
});
