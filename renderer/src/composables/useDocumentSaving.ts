/**
 * Saving the open document (stores/documents.ts holds it and its draft) as its next version, or
 * creating it on the node when it was started as a draft. A save names the version the text
 * started from, so a version saved meanwhile is refused, never replaced: the draft stays and the
 * latest is read for the editor to compare and merge with. An unreachable node keeps the text on
 * this device, to be saved when it is back.
 */
import type { ComputedRef, Ref, ShallowRef } from 'vue';
import type { DocsClient, DocumentDetail } from '../api/docs.ts';
import { ApiError } from '../api/errors.ts';
import type { DraftStore } from '../lib/drafts.ts';
import { errorMessage } from '../lib/format.ts';

export type SaveState = 'saved' | 'unsaved' | 'saving' | 'offline' | 'failed';

/** The open document and its editor, as the documents store holds them. */
export interface EditedDocument {
  team: () => string | null;
  client: (team: string) => DocsClient;
  drafts: () => DraftStore;
  selectedSlug: Readonly<Ref<string | null>>;
  current: ShallowRef<DocumentDetail | null>;
  text: Readonly<Ref<string>>;
  title: Readonly<Ref<string>>;
  baseVersion: Ref<number | null>;
  saveState: Ref<SaveState>;
  saveError: Ref<string | null>;
  /** Whether the editor holds the document's text (nothing is saved before). */
  ready: Readonly<Ref<boolean>>;
  dirty: ComputedRef<boolean>;
  flushDraft: () => void;
  /** What a save changes, read again: the drafts, the list, the history. */
  readDrafts: () => void;
  loadList: () => Promise<void>;
  loadVersions: () => Promise<void>;
}

export function useDocumentSaving(open: EditedDocument) {
  const { selectedSlug, current, text, title, baseVersion, saveState, saveError, dirty } = open;

  /** Saves the editor's text as the next version (or creates the document); the draft goes once saved. */
  async function save(): Promise<DocumentDetail | null> {
    const slug = selectedSlug.value;
    const team = open.team();
    if (slug === null || team === null || saveState.value === 'saving' || !open.ready.value) return null;
    open.flushDraft();
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
      const client = open.client(team);
      // Over the version the text started from: a version saved meanwhile is refused, never replaced.
      const saved = base === null ? await client.create({ slug, title: title.value, body }) : await client.append(slug, body, base);
      if (selectedSlug.value !== slug) {
        // Another document was opened meanwhile and kept this one's text as its draft: it is saved now.
        if (open.drafts().get(team, slug)?.body === body) open.drafts().remove(team, slug);
        open.readDrafts();
        return saved;
      }
      current.value = saved;
      baseVersion.value = saved.current_version;
      if (text.value === body) {
        open.drafts().remove(team, slug);
        saveState.value = 'saved';
      } else {
        // Typed on while saving: what is new stays a draft on top of the version just saved.
        saveState.value = 'unsaved';
        open.flushDraft();
      }
      open.readDrafts();
      void open.loadList();
      void open.loadVersions();
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
      const latest = await open.client(team).get(slug);
      if (selectedSlug.value === slug) current.value = latest;
      void open.loadVersions();
    } catch (error) {
      saveError.value = errorMessage(error);
    }
    return null;
  }

  return { save };
}
