/**
 * The command palette's list (Ctrl/Cmd-K): which commands match what was typed, best first.
 * Pure; tested in palette.test.ts. The commands themselves (go to a view, new mail,
 * switch identity, appearance) are made by components/CommandPalette.vue.
 */

export interface PaletteCommand {
  id: string;
  title: string;
  /** Shown before the title, and matched too: "Go to", "New", "Switch to", "Appearance". */
  group: string;
  /** Other words that find it ("inbox" for Mail). */
  keywords?: string;
  /** The key that does the same where it applies, shown on the right ("C" in Mail). */
  shortcut?: string;
}

function words(text: string): string[] {
  return text
    .toLocaleLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
}

/**
 * The commands whose group, title or keywords contain every typed word; those whose title starts
 * with the first word come first, otherwise the list keeps its order. Everything for no query.
 */
export function matchCommands(commands: readonly PaletteCommand[], query: string): PaletteCommand[] {
  const wanted = words(query);
  if (wanted.length === 0) return [...commands];
  const found = commands.filter((command) => {
    const text = `${command.group} ${command.title} ${command.keywords ?? ''}`.toLocaleLowerCase();
    return wanted.every((word) => text.includes(word));
  });
  const first = wanted[0] ?? '';
  const starts = (command: PaletteCommand): boolean => command.title.toLocaleLowerCase().startsWith(first);
  return [...found.filter(starts), ...found.filter((command) => !starts(command))];
}

/** "Ctrl+K", or "⌘K" on a Mac: how the palette's own shortcut is written for this platform. */
export function paletteShortcut(platform: string): string {
  return /mac|iphone|ipad/i.test(platform) ? '⌘K' : 'Ctrl+K';
}
