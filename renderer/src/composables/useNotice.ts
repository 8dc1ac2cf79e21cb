/**
 * A short notice said over a list after something was done to it ("Archived. Undo", "Deleted",
 * "Draft kept. Discard"), gone after a few seconds or once dismissed. A newer notice replaces the
 * one shown, and the older one's timer leaves the newer alone.
 */
import { ref } from 'vue';

export interface Notice {
  text: string;
  undo: (() => void) | null;
  /** Another thing to do about it ("Discard" a kept draft); the notice goes once done. */
  action?: { label: string; run: () => void };
}

export function useNotice(shownMs: number) {
  const notice = ref<Notice | null>(null);

  function say(text: string, undo: (() => void) | null, action?: Notice['action']): void {
    const shown: Notice = { text, undo, ...(action ? { action } : {}) };
    notice.value = shown;
    setTimeout(() => {
      if (notice.value === shown) notice.value = null;
    }, shownMs);
  }

  function dismiss(): void {
    notice.value = null;
  }

  return { notice, say, dismiss };
}
