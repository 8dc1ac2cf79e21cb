import { describe, expect, it } from 'vitest';
import { LIST_KEYS, listKeyAction } from './list-nav.ts';
import { effectiveGroups, findShortcut, keyLabel, listShortcuts, mayRun, pressName, type Shortcut, type ShortcutGroup } from './shortcuts.ts';

const noop = (): void => undefined;
const key = (keys: string[], label: string, extra: Partial<Shortcut> = {}): Shortcut => ({ keys, label, run: noop, ...extra });
const press = (name: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({
  key: name,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  ...mods,
});

describe('pressName', () => {
  it('names a key as shortcuts do: Mod+ with Ctrl or ⌘, the key itself otherwise, nothing with Alt', () => {
    expect(pressName(press('j'))).toBe('j');
    expect(pressName(press('?'))).toBe('?');
    expect(pressName(press('K', { ctrlKey: true }))).toBe('Mod+k');
    expect(pressName(press('k', { metaKey: true }))).toBe('Mod+k');
    expect(pressName(press('Enter', { ctrlKey: true }))).toBe('Mod+Enter');
    expect(pressName(press('j', { altKey: true }))).toBeNull();
  });
});

describe('findShortcut and effectiveGroups', () => {
  const view: ShortcutGroup = { id: 2, title: 'Mail', shortcuts: [key(['c'], 'New mail'), key(['/', 'x'], 'View slash')] };
  const search: ShortcutGroup = { id: 3, title: 'Search', shortcuts: [key(['/'], 'Search mail')] };
  const shell: ShortcutGroup = { id: 1, title: 'Everywhere', global: true, shortcuts: [key(['Mod+k'], 'Palette'), key(['?'], 'These shortcuts')] };
  const groups = [shell, view, search];

  it('runs the shortcut of the group put on screen last when two bind a key', () => {
    expect(findShortcut(groups, '/')?.label).toBe('Search mail');
    expect(findShortcut(groups, 'x')?.label).toBe('View slash');
    expect(findShortcut(groups, 'c')?.label).toBe('New mail');
    expect(findShortcut(groups, '?')?.label).toBe('These shortcuts');
    expect(findShortcut(groups, 'q')).toBeNull();
  });

  it('lists each key where a press of it goes, the view’s groups first and the shell’s last', () => {
    const shown = effectiveGroups(groups);
    expect(shown.map((group) => [group.title, group.shortcuts.map((s) => [s.label, s.keys])])).toEqual([
      [
        'Mail',
        [
          ['New mail', ['c']],
          ['View slash', ['x']],
        ],
      ],
      ['Search', [['Search mail', ['/']]]],
      [
        'Everywhere',
        [
          ['Palette', ['Mod+k']],
          ['These shortcuts', ['?']],
        ],
      ],
    ]);
    // Every key listed runs the shortcut listed with it, and every bound key is listed.
    for (const group of shown)
      for (const shortcut of group.shortcuts) for (const k of shortcut.keys) expect(findShortcut(groups, k)?.label).toBe(shortcut.label);
    const listed = new Set(shown.flatMap((group) => group.shortcuts.flatMap((s) => s.keys)));
    for (const group of groups) for (const shortcut of group.shortcuts) for (const k of shortcut.keys) expect(listed.has(k)).toBe(true);
  });

  it('leaves out a group with nothing left', () => {
    expect(effectiveGroups([{ id: 1, title: 'Empty', shortcuts: [] }, view]).map((group) => group.title)).toEqual(['Mail']);
  });
});

describe('mayRun', () => {
  it('keeps letters for typing and dialogs to themselves, unless the shortcut says otherwise', () => {
    expect(mayRun(key(['j'], 'Next'), { typing: false, dialogOpen: false })).toBe(true);
    expect(mayRun(key(['j'], 'Next'), { typing: true, dialogOpen: false })).toBe(false);
    expect(mayRun(key(['j'], 'Next'), { typing: false, dialogOpen: true })).toBe(false);
    expect(mayRun(key(['Mod+k'], 'Palette', { whileTyping: true, inDialogs: true }), { typing: true, dialogOpen: true })).toBe(true);
    expect(mayRun(key(['Escape'], 'Back', { whileTyping: true }), { typing: true, dialogOpen: true })).toBe(false);
  });
});

describe('keyLabel', () => {
  it('writes keys for people', () => {
    expect(keyLabel('j')).toBe('J');
    expect(keyLabel('G')).toBe('Shift+G');
    expect(keyLabel('ArrowDown')).toBe('↓');
    expect(keyLabel('Escape')).toBe('Esc');
    expect(keyLabel(' ')).toBe('Space');
    expect(keyLabel('#')).toBe('#');
    expect(keyLabel('Mod+k')).toBe('Ctrl+K');
    expect(keyLabel('Mod+k', true)).toBe('⌘K');
  });
});

describe('listShortcuts', () => {
  it('are the keys the lists themselves take, each asking for its step', () => {
    const steps: string[] = [];
    const shortcuts = listShortcuts((step, pressed) => void steps.push(`${step}:${pressed}`));
    expect(shortcuts.map((s) => s.keys)).toEqual(LIST_KEYS.map((entry) => entry.keys));
    for (const shortcut of shortcuts) for (const k of shortcut.keys) expect(listKeyAction(k, 1, 3)).not.toBeNull();
    findShortcut([{ id: 1, title: 'List', shortcuts }], 'ArrowDown')?.run('ArrowDown');
    findShortcut([{ id: 1, title: 'List', shortcuts }], 'k')?.run('k');
    expect(steps).toEqual(['next:ArrowDown', 'previous:k']);
  });
});
