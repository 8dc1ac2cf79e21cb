/**
 * The command palette's list (Ctrl/Cmd-K): which commands match what was typed, best first, and
 * the sections it shows them in, commands first, then the search hits by kind (Mail, Chat,
 * Documents, Profiles, Blueprints), numbered in the order the arrows go through them. Pure;
 * tested in palette.test.ts. The commands themselves (go to a view, new mail, switch identity,
 * appearance) are made by components/CommandPalette.vue.
 */
import type { SearchHit } from '../api/search.ts';
import { groupHits, hitKey } from './search.ts';

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

/** One row of the palette: a command, or a search hit. */
export type PaletteItem<C extends PaletteCommand> = { type: 'command'; key: string; command: C } | { type: 'hit'; key: string; hit: SearchHit };

export interface PaletteSection<C extends PaletteCommand> {
  /** `commands`, or the hits' kind. */
  id: string;
  label: string;
  /** Each row with its place among all rows (the arrows' order, and its element id). */
  rows: { index: number; item: PaletteItem<C> }[];
}

/** The commands (when any match), then one section per kind of hit; rows numbered across sections. */
export function paletteSections<C extends PaletteCommand>(commands: readonly C[], hits: readonly SearchHit[]): PaletteSection<C>[] {
  let index = 0;
  const sections: PaletteSection<C>[] = [];
  if (commands.length > 0) {
    sections.push({
      id: 'commands',
      label: 'Commands',
      rows: commands.map((command) => ({ index: index++, item: { type: 'command', key: `command:${command.id}`, command } })),
    });
  }
  for (const group of groupHits(hits)) {
    sections.push({ id: group.kind, label: group.label, rows: group.hits.map((hit) => ({ index: index++, item: { type: 'hit', key: hitKey(hit), hit } })) });
  }
  return sections;
}
