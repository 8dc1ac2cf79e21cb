/**
 * The open document's history (stores/documents.ts holds which is open): its versions, newest
 * first, and any version's text, kept once read since a version never changes.
 */
import { ref, type Ref, type ShallowRef } from 'vue';
import type { DocsClient, DocumentDetail, DocumentVersion } from '../api/docs.ts';
import { ApiError } from '../api/errors.ts';

export interface OpenDocument {
  selectedSlug: Readonly<Ref<string | null>>;
  /** The open document as the node has it (null for a draft not yet created). */
  current: Readonly<ShallowRef<DocumentDetail | null>>;
  /** The team shown, and its client. */
  team: () => string | null;
  client: () => DocsClient;
}

export function useDocumentHistory(open: OpenDocument) {
  const { selectedSlug, current } = open;
  /** The history of the open document, newest first. */
  const versions = ref<DocumentVersion[]>([]);

  async function loadVersions(): Promise<void> {
    const slug = selectedSlug.value;
    if (slug === null || current.value === null) return;
    try {
      const list = await open.client().versions(slug);
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
    const key = `${open.team()}|${slug}|${n}`;
    const known = bodies.get(key);
    if (known !== undefined) return known;
    const version = await open.client().version(slug, n);
    const body = version.body ?? '';
    bodies.set(key, body);
    return body;
  }

  /** Another document is open (or none): its history is read when it is. */
  function clear(): void {
    versions.value = [];
  }

  return { versions, loadVersions, versionBody, clear };
}
