/**
 * Keyboard shortcuts, declared once: each view (and the shell) names its keys, what they do in
 * words, and the function they run, as one group; one dispatcher runs them and the `?` sheet lists
 * them, both from the same groups, so the sheet cannot disagree with what the keys do. Pure: which
 * shortcut a key press runs, how a key is written, and what the sheet shows. The registry of the
 * groups on screen is composables/useShortcuts.ts.
 */
import { LIST_KEYS, type ListStep } from './list-nav.ts';

/**
 * The things a view does that are also asked for by name, from elsewhere than its keys (the
 * command palette's "New mail"): the view's shortcut is the one implementation, and the caller runs
 * it by this name rather than pressing its key.
 */
export type CommandName = 'mail.new' | 'chat.new' | 'identities.new-project' | 'identities.new-namespace' | 'teams.new' | 'teams.invite';

export interface Shortcut {
  /**
   * Keys as `KeyboardEvent.key` names them (`j`, `ArrowDown`, `Escape`, `?`, `#`); `Mod+k` is
   * Ctrl+K (⌘K on a Mac). The first is the one the sheet shows first.
   */
  keys: readonly string[];
  /** What it does, in words, as the sheet lists it. */
  label: string;
  /** Does it, given the key pressed; `false` when it does not apply now (the key then goes on as unbound). */
  run: (key: string) => boolean | void;
  /** Also while typing in a text field (a chord like Ctrl+K is no character; Esc leaves the field). */
  whileTyping?: boolean;
  /** Also while a dialog is open (the palette's own toggle). */
  inDialogs?: boolean;
  /** Its name when others ask for it (composables/useShortcuts.ts `runCommand`). */
  command?: CommandName;
}

export interface ShortcutGroup {
  /** Unique among the groups on screen. */
  id: number;
  /** The sheet's heading: the view's name ("Mail"), or "Everywhere". */
  title: string;
  shortcuts: readonly Shortcut[];
  /** The shell's keys: they work in every view, and the sheet lists them last. */
  global?: boolean;
}

/** The key fields of a KeyboardEvent this reads. */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/**
 * A key press as shortcuts name keys: `Mod+k` with Ctrl or ⌘, the key itself otherwise (Shift is
 * in the key: `G`, `?`, `#`); null with Alt, which the app leaves to the system and to typing.
 */
export function pressName(press: KeyPress): string | null {
  if (press.altKey) return null;
  if (press.ctrlKey || press.metaKey) return press.key.length === 1 ? `Mod+${press.key.toLowerCase()}` : `Mod+${press.key}`;
  return press.key;
}

/**
 * Groups in the order they were put on screen: an inner part (a search field) came after the view
 * it is in and wins a key both bind. The result is every group's shortcuts minus the keys a later
 * group takes, so the sheet lists exactly what a key press runs.
 */
export function effectiveGroups(groups: readonly ShortcutGroup[]): ShortcutGroup[] {
  const taken = new Set<string>();
  const result: ShortcutGroup[] = [];
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i];
    if (group === undefined) continue;
    const shortcuts: Shortcut[] = [];
    for (const shortcut of group.shortcuts) {
      const keys = shortcut.keys.filter((key) => !taken.has(key));
      if (keys.length > 0) shortcuts.push(keys.length === shortcut.keys.length ? shortcut : { ...shortcut, keys });
    }
    for (const shortcut of shortcuts) for (const key of shortcut.keys) taken.add(key);
    if (shortcuts.length > 0) result.unshift({ ...group, shortcuts });
  }
  // The view's groups first, in their order; the shell's keys last.
  return [...result.filter((group) => group.global !== true), ...result.filter((group) => group.global === true)];
}

/** The shortcut a key (as `pressName` names it) runs among the groups on screen, or null. */
export function findShortcut(groups: readonly ShortcutGroup[], key: string): Shortcut | null {
  for (let i = groups.length - 1; i >= 0; i--) {
    const found = groups[i]?.shortcuts.find((shortcut) => shortcut.keys.includes(key));
    if (found !== undefined) return found;
  }
  return null;
}

/** Where the key press comes from, as far as shortcuts care. */
export interface PressContext {
  typing: boolean;
  dialogOpen: boolean;
}

/** Whether `shortcut` may run now: not while typing or behind a dialog unless it says so. */
export function mayRun(shortcut: Shortcut, context: PressContext): boolean {
  if (context.typing && shortcut.whileTyping !== true) return false;
  if (context.dialogOpen && shortcut.inDialogs !== true) return false;
  return true;
}

const NAMED: Record<string, string> = {
  ArrowDown: '↓',
  ArrowUp: '↑',
  ArrowLeft: '←',
  ArrowRight: '→',
  Escape: 'Esc',
  ' ': 'Space',
};

/** How a key is written for people: `J`, `Shift+G`, `↓`, `Esc`, `Ctrl+K` (`⌘K` on a Mac), `?`. */
export function keyLabel(key: string, mac = false): string {
  if (key.startsWith('Mod+')) {
    const rest = keyLabel(key.slice(4), mac);
    return mac ? `⌘${rest}` : `Ctrl+${rest}`;
  }
  const named = NAMED[key];
  if (named !== undefined) return named;
  if (/^[a-z]$/.test(key)) return key.toUpperCase();
  if (/^[A-Z]$/.test(key)) return `Shift+${key}`;
  return key;
}

/**
 * A list's keys as shortcuts (LIST_KEYS, the table the lists themselves read): each asks `press`
 * to take that step in the view's list, from wherever the view has the keyboard.
 */
export function listShortcuts(press: (step: ListStep, key: string) => boolean | void): Shortcut[] {
  return LIST_KEYS.map((entry) => ({ keys: entry.keys, label: entry.label, run: (key: string) => press(entry.step, key) }));
}
