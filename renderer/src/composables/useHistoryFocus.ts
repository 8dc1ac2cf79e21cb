/**
 * A document to be opened on one version's history: a search hit found an older version, so the
 * Documents view opens it with the History tab showing what that version changed
 * (DocumentPane.vue switches tab, HistoryPane.vue shows the change and lets go of this).
 */
import { ref, watch } from 'vue';

const wanted = ref<{ slug: string; version: number } | null>(null);

export function useHistoryFocus() {
  return wanted;
}

/** Calls `open` whenever the document `slug` names is wanted on its history (now, or later while it is shown). */
export function onHistoryWanted(slug: () => string, open: () => void): void {
  watch(
    () => wanted.value !== null && wanted.value.slug === slug(),
    (yes) => {
      if (yes) open();
    },
    { immediate: true },
  );
}
