/**
 * Documents: the chosen team's (stores/teams.ts) versioned Markdown documents, the one open in
 * the editor, and its local draft. Every keystroke is kept as a draft in the window's storage
 * (lib/drafts.ts) until it is saved as a new version, so closing the window, a failed save or an
 * unreachable node loses nothing; a document can even be started while the node is unreachable
 * and is created on the node by its first save. Every call goes through DocsClient, signed by the
 * node as the team's owner member. Documents changed elsewhere arrive as `docs_changed` nudges.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import { ApiError } from '../api/client.ts';
import { DocsClient } from '../api/docs.ts';
import type { DocumentDetail, DocumentSummary, DocumentVersion, TemplateRequest } from '../api/docs.ts';
import { DraftStore, type DocumentDraft } from '../lib/drafts.ts';
import { errorMessage } from '../lib/format.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';
import { useTeamsStore } from './teams.ts';

/** How long typing may pause before the draft is written (also written on window close). */
const DRAFT_DELAY_MS = 250;

export type SaveState = 'saved' | 'unsaved' | 'saving' | 'offline' | 'failed';

/** A row of the list: a document on the node, or a draft of one not yet created there. */
export interface DocumentRow {
  slug: string;
  title: string;
  /** Null for a document that exists only as a local draft. */
  version: number | null;
  updatedAt: string;
  hasDraft: boolean;
}

export const useDocumentsStore = defineStore('documents', () => {
  const session = useSessionStore();
  const teams = useTeamsStore();

  const documents = ref<DocumentSummary[]>([]);
  const loaded = ref(false);
  const listError = ref<string | null>(null);
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

  let shownTeam: string | null = null;
  let generation = 0;
  let draftTimer: ReturnType<typeof setTimeout> | undefined;

  const draftStore = computed(() => new DraftStore(window.localStorage, session.info?.docs_url ?? window.location.origin));

  /** The node's newest version is newer than the one the editor started from. */
  const behind = computed(() => current.value !== null && baseVersion.value !== null && current.value.current_version > baseVersion.value);
  /** Something typed is not in the node's current version (or the document is not on the node yet). */
  const dirty = computed(() => baseVersion.value === null || current.value === null || text.value !== current.value.body);

  const rows = computed<DocumentRow[]>(() => {
    const draftSlugs = new Set(drafts.value.map((d) => d.slug));
    const onNode = new Set(documents.value.map((d) => d.slug));
    const local = drafts.value
      .filter((d) => !onNode.has(d.slug))
      .map((d) => ({ slug: d.slug, title: d.title, version: null, updatedAt: d.updatedAt, hasDraft: true }));
    const remote = documents.value.map((d) => ({ slug: d.slug, title: d.title, version: d.current_version, updatedAt: d.updated_at, hasDraft: draftSlugs.has(d.slug) }));
    return [...local, ...remote];
  });

  /** The documents as the chosen team. */
  function docs(id: string | null = teams.teamId): DocsClient {
    const api = session.api();
    return new DocsClient({
      docsUrl: session.info?.docs_url || api.coreUrl,
      teamId: id ?? '',
      fetch: (input, init) => window.fetch(input, init),
      sign: (request) => (id === null ? Promise.reject(new ApiError(0, 'No team is chosen: create one first.')) : api.signAsTeam(id, request, 'docs')),
    });
  }

  // ------------------------------------------------------------------ the list

  async function open(): Promise<void> {
    await teams.load();
    await showTeam(teams.teamId);
  }

  async function showTeam(id: string | null): Promise<void> {
    if (id !== shownTeam) {
      flushDraft();
      shownTeam = id;
      generation++;
      documents.value = [];
      loaded.value = false;
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

  async function loadList(): Promise<void> {
    const mine = generation;
    try {
      const list = await docs(shownTeam).list();
      if (mine !== generation) return;
      documents.value = list;
      listError.value = null;
    } catch (error) {
      if (mine === generation) listError.value = errorMessage(error);
    } finally {
      if (mine === generation) loaded.value = true;
    }
  }

  // ------------------------------------------------------------------ the open document

  function clearSelection(): void {
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
    }
    if (draft?.baseVersion === null) return;
    loading.value = true;
    try {
      const detail = await docs(team).get(slug);
      if (selectedSlug.value !== slug) return;
      current.value = detail;
      if (draft === null) {
        text.value = detail.body;
        title.value = detail.title;
        baseVersion.value = detail.current_version;
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

  /** The editor changed: kept as a draft shortly after typing pauses. */
  function edit(next: string): void {
    if (next === text.value) return;
    text.value = next;
    saveState.value = 'unsaved';
    clearTimeout(draftTimer);
    draftTimer = setTimeout(flushDraft, DRAFT_DELAY_MS);
  }

  /** Writes the open document's draft now (also on window close); removes it when nothing is unsaved. */
  function flushDraft(): void {
    clearTimeout(draftTimer);
    draftTimer = undefined;
    const slug = selectedSlug.value;
    if (shownTeam === null || slug === null) return;
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
    if (slug === null || team === null || saveState.value === 'saving') return null;
    flushDraft();
    const body = text.value;
    saveState.value = 'saving';
    saveError.value = null;
    try {
      const client = docs(team);
      const saved = baseVersion.value === null ? await client.create({ slug, title: title.value, body }) : await client.append(slug, body);
      if (selectedSlug.value !== slug) return saved;
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
      const unreachable = error instanceof ApiError && error.status === 0;
      saveState.value = unreachable ? 'offline' : 'failed';
      saveError.value = unreachable ? 'The node can’t be reached. Your changes are kept on this device; save again when it is back.' : errorMessage(error);
      return null;
    }
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

  /** A template version appended to the open document. */
  async function appendTemplate(template: TemplateRequest): Promise<void> {
    const slug = selectedSlug.value;
    if (slug === null) return;
    await docs(shownTeam).appendTemplate(slug, template);
    draftStore.value.remove(shownTeam ?? '', slug);
    await Promise.all([loadList(), select(slug)]);
  }

  // ------------------------------------------------------------------ live

  /** Someone else changed the team's documents: the list, and the open one unless it has local edits. */
  async function onChanged(teamId: string | null): Promise<void> {
    if (teamId !== shownTeam || shownTeam === null) return;
    await loadList();
    const slug = selectedSlug.value;
    if (slug === null || current.value === null) return;
    const listed = documents.value.find((d) => d.slug === slug);
    if (listed === undefined || listed.current_version === current.value.current_version) return;
    if (saveState.value === 'saved') {
      await select(slug);
    } else {
      // Keep the typing; `behind` tells the editor a newer version exists.
      current.value = await docs(shownTeam).get(slug);
      void loadVersions();
    }
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
    drafts,
    rows,
    selectedSlug,
    current,
    loading,
    loadError,
    text,
    title,
    baseVersion,
    saveState,
    saveError,
    draftWarning,
    versions,
    behind,
    dirty,
    docs,
    open,
    showTeam,
    loadList,
    select,
    versionBody,
    edit,
    flushDraft,
    discardDraft,
    restore,
    save,
    create,
    appendTemplate,
    startLive,
  };
});
