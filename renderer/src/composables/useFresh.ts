/**
 * What just arrived live, highlighted for a few seconds: Mail's new messages, Chat's sessions
 * with a new message. `fresh` maps each id to true while it is highlighted.
 */
import { ref } from 'vue';

export function useFresh(highlightMs: number) {
  const fresh = ref<Record<string, true>>({});

  function mark(id: string): void {
    fresh.value = { ...fresh.value, [id]: true };
    setTimeout(() => {
      const next = { ...fresh.value };
      delete next[id];
      fresh.value = next;
    }, highlightMs);
  }

  /** Nothing highlighted (another identity shown). */
  function clear(): void {
    fresh.value = {};
  }

  return { fresh, mark, clear };
}
