/**
 * Documents: the chosen team's (stores/teams.ts) versioned Markdown documents, the one open in
 * the editor, and its local draft. Every keystroke is kept as a draft in the window's storage
 * (lib/drafts.ts) until it is saved as a new version, so closing the window, a failed save or an
 * unreachable node loses nothing; a document can even be started while the node is unreachable
 * and is created on the node by its first save. Every call goes through DocsClient, signed by the
 * node as the team's owner member; writes name the identity chosen in the switcher
 * (composables/useDocs.ts). The list is read a page at a time (100,000 documents stay smooth),
 * filtered on the node; its rows put drafts first (lib/drafts.ts). Documents changed elsewhere
 * arrive as `docs_changed` nudges.
 */
import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef } from 'vue';
import { ApiError } from '../api/errors.ts';
import type { DocumentDetail, DocumentSummary, DocumentVersion, TemplateRequest } from '../api/docs.ts';
import { useDocs } from '../composables/useDocs.ts';
import { usePagedList } from '../composables/usePagedList.ts';
import { documentRows, DraftStore, type DocumentDraft } from '../lib/drafts.ts';
import { errorMessage } from '../lib/format.ts';
import { useDocsThemeStore } from './docs-theme.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';
import { useTeamsStore } from './teams.ts';

/** How long typing may pause before the draft is written (also written on window close). */
const DRAFT_DELAY_MS = 250;
/** Documents read per page as the list scrolls; a refresh reads up to 500 at a time. */
const PAGE_SIZE = 100;
const REFRESH_PAGE_SIZE = 500;

export type SaveState = 'saved' | 'unsaved' | 'saving' | 'offline' | 'failed';

export const useDocumentsStore = defineStore('documents', () => {
  const session = useSessionStore();
  const teams = useTeamsStore();
  /** The documents as the chosen team, or `shownTeam`; writes name the identity the app acts as. */
  const docs = useDocs();

  /** The list's filter (title or slug), applied by the node. */
  const query = ref('');
  /** The pages of the list read so far, newest first (composables/usePagedList.ts). */
  const list = usePagedList<DocumentSummary>({
    read: async (after, limit) => {
      const page = await docs(shownTeam).page({ limit, after, q: query.value });
      return { items: page.documents, hasMore: page.has_more, next: page.next_after, total: page.total };
    },
    key: (d) => d.slug,
    pageSize: PAGE_SIZE,
    reloadPageSize: REFRESH_PAGE_SIZE,
  });
  const { items: documents, loaded, error: listError, hasMore } = list;
  /** How many documents match the filter on the node (more than `documents` until every page is read). */
  const total = computed(() => list.total.value ?? 0);
  const drafts = ref<DocumentDraft[]>([]);

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
  /** The history of the open document, newest first. */
  const versions = ref<DocumentVersion[]>([]);
  /**
   * The editor's text is the open document's (its draft, or the node's version): until then there
   * is nothing of the person's to keep, an empty editor must never be kept as a draft, and the
   * editor takes no typing (it would be replaced when the document arrives).
   */
  const ready = ref(false);
  /** Bumped by every change made elsewhere to the shown team's documents, links or theme (views re-read). */
  const changes = ref(0);

  let shownTeam: string | null = null;
  let draftTimer: ReturnType<typeof setTimeout> | undefined;

  const draftStore = computed(() => new DraftStore(window.localStorage, session.info?.docs_url ?? window.location.origin));

  /** The node's newest version is newer than the one the editor started from. */
  const behind = computed(() => current.value !== null && baseVersion.value !== null && current.value.current_version > baseVersion.value);
  /** Something typed is not in the node's current version (or the document is not on the node yet). */
  const dirty = computed(() => baseVersion.value === null || current.value === null || text.value !== current.value.body);

  const rows = computed(() => documentRows(drafts.value, documents.value, query.value));

  // ------------------------------------------------------------------ the list

  async function open(): Promise<void> {
    await teams.load();
    await showTeam(teams.teamId);
  }

  async function showTeam(id: string | null): Promise<void> {
    if (id !== shownTeam) {
      flushDraft();
      shownTeam = id;
      list.reset();
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

  function readDrafts(): void {
    drafts.value = shownTeam === null ? [] : draftStore.value.list(shownTeam);
  }

  /**
   * Reads the list again from the top, as far as it had been read (at least a page), so a refresh
   * keeps what was on screen; another team or filter meanwhile makes the answer moot.
   */
  async function loadList(): Promise<void> {
    await list.load();
  }

  /** The next page, when the list is scrolled near its end; one read at a time. */
  function loadMore(): Promise<void> {
    return list.loadMore();
  }

  /** Filters the list on the node by title or slug (the component debounces typing). */
  async function search(text: string): Promise<void> {
    if (text === query.value) return;
    query.value = text;
    list.clear();
    await loadList();
  }

  // ------------------------------------------------------------------ the open document

  function clearSelection(): void {
    ready.value = false;
    selectedSlug.value = null;
    current.value = null;
    text.value = '';
    title.value = '';
    baseVersion.value = null;
    versions.value = [];
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

  async function loadVersions(): Promise<void> {
    const slug = selectedSlug.value;
    if (slug === null || current.value === null) return;
    try {
      const list = await docs(shownTeam).versions(slug);
      if (selectedSlug.value === slug) versions.value = list;
    } catch {
      // The History tab says what failed when it is opened.
    }
  }

  /** One version's body (cached: versions never change). */
  const bodies = new Map<string, string>();
  async function versionBody(n: number): Promise<string> {
    const slug = selectedSlug.value;
    if (slug === null) throw new ApiError(0, 'No document is open.');
    if (current.value?.current_version === n) return current.value.body;
    const key = `${shownTeam}|${slug}|${n}`;
    const known = bodies.get(key);
    if (known !== undefined) return known;
    const version = await docs(shownTeam).version(slug, n);
    const body = version.body ?? '';
    bodies.set(key, body);
    return body;
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
      const kept = draftStore.value.put({ teamId: shownTeam, slug, baseVersion: baseVersion.value, title: title.value, body: text.value, updatedAt: new Date().toISOString() });
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

  // ------------------------------------------------------------------ saving

  /** Saves the editor's text as the next version (or creates the document); the draft goes once saved. */
  async function save(): Promise<DocumentDetail | null> {
    const slug = selectedSlug.value;
    const team = shownTeam;
    if (slug === null || team === null || saveState.value === 'saving' || !ready.value) return null;
    flushDraft();
    // Nothing new (typed and typed back): no version, and nothing to keep.
    if (!dirty.value) {
      saveState.value = 'saved';
      return current.value;
    }
    const body = text.value;
    const base = baseVersion.value;
    saveState.value = 'saving';
    saveError.value = null;
    try {
      const client = docs(team);
      // Over the version the text started from: a version saved meanwhile is refused, never replaced.
      const saved = base === null ? await client.create({ slug, title: title.value, body }) : await client.append(slug, body, base);
      if (selectedSlug.value !== slug) {
        // Another document was opened meanwhile and kept this one's text as its draft: it is saved now.
        if (draftStore.value.get(team, slug)?.body === body) draftStore.value.remove(team, slug);
        readDrafts();
        return saved;
      }
      current.value = saved;
      baseVersion.value = saved.current_version;
      if (text.value === body) {
        draftStore.value.remove(team, slug);
        saveState.value = 'saved';
      } else {
        // Typed on while saving: what is new stays a draft on top of the version just saved.
        saveState.value = 'unsaved';
        flushDraft();
      }
      readDrafts();
      void loadList();
      void loadVersions();
      return saved;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'SVC_ERR_DOCUMENT_VERSION_STALE') return await refusedAsStale(team, slug);
      const unreachable = error instanceof ApiError && error.status === 0;
      saveState.value = unreachable ? 'offline' : 'failed';
      saveError.value = unreachable ? 'The node can’t be reached. Your changes are kept on this device; save again when it is back.' : errorMessage(error);
      return null;
    }
  }

  /**
   * The node refused the save: a version was saved meanwhile. The draft stays; the latest is
   * read so the editor can compare and merge with it (`behind`), and nothing was saved.
   */
  async function refusedAsStale(team: string, slug: string): Promise<null> {
    saveState.value = 'failed';
    try {
      const latest = await docs(team).get(slug);
      if (selectedSlug.value === slug) current.value = latest;
      void loadVersions();
    } catch (error) {
      saveError.value = errorMessage(error);
    }
    return null;
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
    const listed = documents.value.find((d) => d.slug === slug) ?? (await docs(shownTeam).get(slug).catch(() => undefined));
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
