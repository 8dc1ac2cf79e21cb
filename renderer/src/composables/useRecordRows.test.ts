// @vitest-environment jsdom
/**
 * Record rows with a roving tab stop: arrows move the keyboard from row to row (one tab stop at a
 * time), Enter opens the row and Delete asks to remove it, only when the row itself has the key;
 * when rows go, the tab stop stays on a row that is there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { effectScope, ref } from 'vue';
import { useRecordRows } from './useRecordRows.ts';

afterEach(() => document.body.replaceChildren());

function holdRows(names: string[]) {
  const rows = ref(names);
  const list = document.createElement('ul');
  for (const [index, name] of names.entries()) {
    const row = document.createElement('li');
    row.id = `peer-row-${index}`;
    row.tabIndex = -1;
    const button = document.createElement('button');
    button.textContent = `Remove ${name}`;
    row.append(button);
    list.append(row);
  }
  document.body.append(list);
  const opened: string[] = [];
  const removed: string[] = [];
  const scope = effectScope();
  const keys = scope.run(() =>
    useRecordRows({
      title: 'Peers',
      prefix: 'peer-row',
      rows: () => rows.value,
      panel: () => list,
      open: (row) => opened.push(row),
      remove: (row) => removed.push(row),
    }),
  )!;
  list.addEventListener('keydown', keys.onListKeydown);
  const send = (target: Element, key: string) => target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  const press = (index: number, key: string) => send(document.getElementById(`peer-row-${index}`)!, key);
  const pressButton = (index: number, key: string) => send(document.getElementById(`peer-row-${index}`)!.querySelector('button')!, key);
  return { rows, keys, opened, removed, press, pressButton };
}

describe('useRecordRows', () => {
  it('moves the tab stop and the keyboard with the arrows, opens with Enter and asks to remove with Delete', () => {
    const { keys, opened, removed, press } = holdRows(['a.example', 'b.example', 'c.example']);
    expect([0, 1, 2].map(keys.tabIndex)).toEqual([0, -1, -1]);
    press(0, 'ArrowDown');
    expect(document.activeElement?.id).toBe('peer-row-1');
    expect([0, 1, 2].map(keys.tabIndex)).toEqual([-1, 0, -1]);
    press(1, 'Enter');
    press(1, 'Delete');
    expect(opened).toEqual(['b.example']);
    expect(removed).toEqual(['b.example']);
  });

  it('leaves Enter and Delete on a row’s button to the button', () => {
    const { opened, removed, pressButton } = holdRows(['a.example', 'b.example']);
    pressButton(0, 'Enter');
    pressButton(0, 'Delete');
    expect(opened).toEqual([]);
    expect(removed).toEqual([]);
  });

  it('keeps the tab stop on a row that is there when rows go', () => {
    const { rows, keys, opened, press } = holdRows(['a.example', 'b.example', 'c.example']);
    press(0, 'End');
    expect(keys.focusedRow.value).toBe(2);
    rows.value = ['a.example', 'b.example'];
    expect([0, 1].map(keys.tabIndex)).toEqual([-1, 0]);
    press(1, 'Enter');
    expect(opened).toEqual(['b.example']);
  });
});
