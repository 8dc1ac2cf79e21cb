/**
 * The shortcuts on screen (lib/shortcuts.ts): a view calls `useShortcuts('Mail', () => [...])`
 * while it is shown, and one listener on the window runs the key pressed, once no focused part
 * took it itself (a focused list its arrows, a button its Enter, a field its letters). The `?`
 * sheet (ShortcutsSheet.vue) lists `shortcutGroups()`: the same groups, so it lists exactly the
 * keys that work here.
 */
import { computed, getCurrentInstance, onBeforeUnmount, shallowRef } from 'vue';
import { isTypingTarget } from '../lib/list-nav.ts';
import { effectiveGroups, findShortcut, mayRun, pressName, type CommandName, type Shortcut, type ShortcutGroup } from '../lib/shortcuts.ts';

interface Registered {
  id: number;
  title: string;
  global: boolean;
  shortcuts: () => readonly Shortcut[];
}

/** In the order they were put on screen (a view before the parts inside it). */
const registered = shallowRef<readonly Registered[]>([]);
let nextId = 1;
let listening = false;

/**
 * Where the person last was on the page: the element last focused or pressed, outside dialogs (the
 * `?` sheet is one, and must list the keys of the place it was opened from). A part with keys of
 * its own for one region (a list in a pane: `inRegion`) offers them while this is inside it.
 */
const lastPlace = shallowRef<Element | null>(null);

function noteTarget(target: EventTarget | null): void {
  if (!(target instanceof Element) || target.closest('dialog') !== null) return;
  lastPlace.value = target;
}

/** The person is in `region` (it holds the element last focused or pressed). Reactive: read it in a group's `shortcuts`. */
export function inRegion(region: Element | null): boolean {
  const place = lastPlace.value;
  return region !== null && place !== null && region.contains(place);
}

const groups = computed<ShortcutGroup[]>(() =>
  registered.value.map((entry) => ({ id: entry.id, title: entry.title, global: entry.global, shortcuts: entry.shortcuts() })),
);

/** What the `?` sheet lists: every group on screen, each key where a press of it goes. */
export const shortcutGroups = computed(() => effectiveGroups(groups.value));

/** Keys a focused control acts on itself: Enter and Space press it; arrows move in widgets and scroll panes. */
const MOVING_KEYS = new Set(['ArrowDown', 'ArrowUp', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);
const ARROW_WIDGETS = '[role="listbox"], [role="tablist"], [role="menu"], [role="radiogroup"], [role="tree"], [role="grid"], [role="slider"], select';

function takenByFocus(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement) || target === document.body || target === document.documentElement) return false;
  if (key === 'Enter' || key === ' ') return true;
  if (MOVING_KEYS.has(key)) return target.closest(ARROW_WIDGETS) !== null || target.scrollHeight > target.clientHeight + 1;
  return false;
}

function onKeydown(event: KeyboardEvent): void {
  if (event.defaultPrevented || event.isComposing) return;
  const key = pressName(event);
  if (key === null) return;
  const shortcut = findShortcut(groups.value, key);
  if (shortcut === null) return;
  const typing = isTypingTarget(event.target);
  if (!mayRun(shortcut, { typing, dialogOpen: document.querySelector('dialog[open]') !== null })) return;
  if (!typing && takenByFocus(event.target, key)) return;
  if (shortcut.run(key) === false) return;
  event.preventDefault();
}

/**
 * Runs the command `name` of a view on screen (the innermost that offers it), as its key would,
 * without pretending a key was pressed; false when no view on screen offers it now.
 */
export function runCommand(name: CommandName): boolean {
  for (const group of [...groups.value].reverse()) {
    const shortcut = group.shortcuts.find((candidate) => candidate.command === name);
    if (shortcut !== undefined) return shortcut.run(shortcut.keys[0] ?? '') !== false;
  }
  return false;
}

/**
 * Puts a group of shortcuts on screen while the calling component is (call it from `setup`):
 * `shortcuts` is read again whenever what it reads changes (a key that applies only to an open
 * item, say). `global` for the shell's keys, which work in every view.
 */
export function useShortcuts(title: string, shortcuts: () => readonly Shortcut[], options: { global?: boolean } = {}): void {
  const entry: Registered = { id: nextId++, title, global: options.global === true, shortcuts };
  registered.value = [...registered.value, entry];
  if (!listening) {
    window.addEventListener('keydown', onKeydown);
    document.addEventListener('focusin', (event) => noteTarget(event.target));
    document.addEventListener('pointerdown', (event) => noteTarget(event.target), { capture: true });
    listening = true;
  }
  if (getCurrentInstance() !== null) {
    onBeforeUnmount(() => {
      registered.value = registered.value.filter((other) => other !== entry);
    });
  }
}
