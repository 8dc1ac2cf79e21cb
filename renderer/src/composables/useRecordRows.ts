/**
 * The keyboard of a list of record rows with buttons in them (Settings' peers and browser
 * sessions): a roving tab stop, so each row is one stop in turn and its buttons stay reachable
 * with Tab; arrows or j/k move, Home/End jump, Enter opens the row, Delete (or Backspace) asks to
 * remove it. The same keys work from anywhere in the panel while the person is there, listed in
 * the `?` sheet under the list's name; a key that moves, pressed outside the rows, first puts the
 * keyboard on the row with the tab stop.
 */
import { ref } from 'vue';
import { listKeyAction } from '../lib/list-nav.ts';
import { useListKeysInRegion } from './useListNav.ts';

export interface RecordRows<T> {
  /** The `?` sheet's heading for the rows' keys: the list's name ("Peers"). */
  title: string;
  /** Row `index` has the element id `${prefix}-${index}`. */
  prefix: string;
  rows: () => readonly T[];
  /** The panel the list is in. */
  panel: () => HTMLElement | null;
  /** Enter on a row. */
  open: (row: T) => void;
  /** Delete or Backspace on a row: asks to remove it. */
  remove: (row: T) => void;
}

export function useRecordRows<T>(list: RecordRows<T>) {
  /** The row the tab stop was last put on (kept within the rows by `tabStop`). */
  const focusedRow = ref(0);

  function tabStop(): number {
    return Math.min(focusedRow.value, list.rows().length - 1);
  }

  function rowElement(index: number): HTMLElement | null {
    return document.getElementById(`${list.prefix}-${index}`);
  }

  /** The row's tabindex: only the row with the tab stop is reached with Tab. */
  function tabIndex(index: number): 0 | -1 {
    return index === tabStop() ? 0 : -1;
  }

  /** A list key on the rows: true when it took a step. */
  function stepRows(key: string): boolean {
    const rows = list.rows();
    const action = listKeyAction(key, tabStop(), rows.length);
    if (action === null) return false;
    if (action.type === 'move') {
      focusedRow.value = action.index;
      rowElement(action.index)?.focus();
    } else {
      const row = rows[action.index];
      if (row !== undefined) list.open(row);
    }
    return true;
  }

  /** The list's keydown: only keys on the row itself (a row's button keeps its own Enter). */
  function onListKeydown(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey || event.target !== rowElement(tabStop())) return;
    const row = list.rows()[tabStop()];
    if ((event.key === 'Delete' || event.key === 'Backspace') && row !== undefined) {
      event.preventDefault();
      list.remove(row);
      return;
    }
    if (stepRows(event.key)) event.preventDefault();
  }

  useListKeysInRegion(list.title, list.panel, (step, key) => {
    const row = rowElement(tabStop());
    if (step === 'open' || row === null || row.contains(document.activeElement)) return stepRows(key);
    row.focus();
    return true;
  });

  return { focusedRow, tabIndex, onListKeydown };
}
