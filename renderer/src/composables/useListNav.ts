/**
 * Keyboard navigation for a list element: arrows or j/k move, Home/End jump, Enter opens.
 * The list is one tab stop (role="listbox" with aria-activedescendant); the key logic itself is
 * the pure `listKeyAction` in lib/list-nav.ts.
 *
 * A list in a pane or a section of a page (a document's versions, a team's members) takes its
 * keys from anywhere in that region too, not only while it has the keyboard (`inPane`): while the
 * person is there its keys are a group of their own, which the `?` sheet lists under its name.
 */
import { nextTick, ref, watch } from 'vue';
import type { Ref } from 'vue';
import { inRegion, useShortcuts } from './useShortcuts.ts';
import { listKeyAction, type ListStep } from '../lib/list-nav.ts';
import { listShortcuts } from '../lib/shortcuts.ts';

/** A list's keys from anywhere in its region. */
export interface ListInPane {
  /** The `?` sheet's heading for the list's keys: the list's name ("Versions"). */
  title: string;
  /** The list element, which takes the keyboard with the first key. */
  list: () => HTMLElement | null;
  /** The pane or section the list is in. */
  region: () => HTMLElement | null;
  /** After each key the list took (its own or from the region): a pane that follows the cursor. */
  stepped?: () => void;
}

/**
 * A list's keys (lib/list-nav.ts LIST_KEYS) from anywhere in `region` while the person is there,
 * as a group of the `?` sheet named `title`; `press` takes the step (false: it does nothing).
 * For lists that keep their own keyboard (a roving tab stop over rows).
 */
export function useListKeysInRegion(title: string, region: () => HTMLElement | null, press: (step: ListStep, key: string) => boolean): void {
  useShortcuts(title, () => (inRegion(region()) ? listShortcuts(press) : []));
}

export function useListNav<T>(prefix: string, items: Ref<readonly T[]>, open: (item: T) => void, inPane?: ListInPane) {
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

  /** Takes the step a key names; false when the key does nothing here. */
  function step(key: string): boolean {
    const action = listKeyAction(key, active.value, items.value.length);
    if (action === null) return false;
    if (action.type === 'move') move(action.index);
    else {
      const item = items.value[action.index];
      if (item !== undefined) open(item);
    }
    inPane?.stepped?.();
    return true;
  }

  function onKeydown(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (step(event.key)) event.preventDefault();
  }

  if (inPane !== undefined) {
    useListKeysInRegion(inPane.title, inPane.region, (_step, key) => {
      const list = inPane.list();
      if (list === null || !step(key)) return false;
      list.focus({ preventScroll: true });
      return true;
    });
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
