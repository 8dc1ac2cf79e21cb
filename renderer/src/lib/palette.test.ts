import { describe, expect, it } from 'vitest';
import { matchCommands, paletteShortcut, type PaletteCommand } from './palette.ts';

const COMMANDS: PaletteCommand[] = [
  { id: 'go-mail', group: 'Go to', title: 'Mail', keywords: 'inbox' },
  { id: 'go-settings', group: 'Go to', title: 'Settings', keywords: 'tunnel peers' },
  { id: 'new-mail', group: 'New', title: 'Mail', shortcut: 'C' },
  { id: 'switch-bob', group: 'Switch to', title: 'bob', keywords: 'example.com/bob identity' },
  { id: 'theme-dark', group: 'Appearance', title: 'Dark' },
];

const ids = (query: string) => matchCommands(COMMANDS, query).map((command) => command.id);

describe('matchCommands', () => {
  it('lists everything for an empty query, in order', () => {
    expect(ids('  ')).toEqual(COMMANDS.map((command) => command.id));
  });

  it('needs every word somewhere in the group, title or keywords, ignoring case', () => {
    expect(ids('new mail')).toEqual(['new-mail']);
    expect(ids('INBOX')).toEqual(['go-mail']);
    expect(ids('switch example')).toEqual(['switch-bob']);
    expect(ids('nothing here')).toEqual([]);
  });

  it('puts titles that start with the first word first', () => {
    expect(ids('d')).toEqual(['theme-dark', 'switch-bob']);
    expect(ids('mail')).toEqual(['go-mail', 'new-mail']);
  });
});

describe('paletteShortcut', () => {
  it('says ⌘K on a Mac and Ctrl+K elsewhere', () => {
    expect(paletteShortcut('MacIntel')).toBe('⌘K');
    expect(paletteShortcut('Linux x86_64')).toBe('Ctrl+K');
  });
});
