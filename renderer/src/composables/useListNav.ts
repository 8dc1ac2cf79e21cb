/**
 * Keyboard navigation for a list element: arrows or j/k move, Home/End jump, Enter opens.
 * The list is one tab stop (role="listbox" with aria-activedescendant); the key logic itself is
 * the pure `listKeyAction` in lib/list-nav.ts.
 */
import { nextTick, ref, watch } from 'vue';
import type { Ref } from 'vue';
import { listKeyAction } from '../lib/list-nav.ts';

export function useListNav<T>(prefix: string, items: Ref<readonly T[]>, open: (item: T) => void) {
  const active = ref(-1);

  watch(
    () => items.value.length,
    (length) => {
      if (active.value >= length) active.value = length - 1;
    },
  );

  function rowId(index: number): string {
    return `${prefix}-${index}`;
  }

  function move(index: number): void {
    active.value = index;
    void nextTick(() => document.getElementById(rowId(index))?.scrollIntoView({ block: 'nearest' }));
  }

  function onKeydown(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const action = listKeyAction(event.key, active.value, items.value.length);
    if (action === null) return;
    event.preventDefault();
    if (action.type === 'move') move(action.index);
    else {
      const item = items.value[action.index];
      if (item !== undefined) open(item);
    }
  }

  function onFocus(): void {
    if (active.value < 0 && items.value.length > 0) move(0);
  }

  function onClick(index: number): void {
    active.value = index;
    const item = items.value[index];
    if (item !== undefined) open(item);
  }

  const activeId = (): string | undefined => (active.value >= 0 ? rowId(active.value) : undefined);

  return { active, rowId, activeId, onKeydown, onFocus, onClick };
}
