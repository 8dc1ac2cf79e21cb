import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../api/search.ts';
import { matchCommands, paletteSections, paletteShortcut, type PaletteCommand } from './palette.ts';

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

describe('paletteSections', () => {
  const base = { snippet: '', highlights: [], title_highlights: [], created_at: '2026-01-01T00:00:00Z', score: 1 };
  const doc: SearchHit = { kind: 'document', ...base, title: 'Plan', team_id: 't', slug: 'plan', version: 2, current: true };
  const mail: SearchHit = {
    kind: 'mail',
    ...base,
    title: 'Café',
    message_id: 'm1',
    thread_id: null,
    agent_id: 'a',
    folder: 'inbox',
    from: 'b',
    to: 'a',
    unread: true,
  };
  const chat: SearchHit = { kind: 'chat', ...base, title: 'bob', message_id: 'c1', session_id: 's', agent_id: 'a', from: 'bob' };

  it('puts the commands first, then the hits by kind, numbering rows in the order the arrows take', () => {
    const sections = paletteSections(COMMANDS.slice(0, 2), [doc, chat, mail]);
    expect(sections.map((section) => section.label)).toEqual(['Commands', 'Mail', 'Chat', 'Documents']);
    expect(sections.flatMap((section) => section.rows.map((row) => row.index))).toEqual([0, 1, 2, 3, 4]);
    expect(sections.flatMap((section) => section.rows.map((row) => row.item.key))).toEqual([
      'command:go-mail',
      'command:go-settings',
      'mail:a:m1',
      'chat:a:c1',
      'document:t:plan:2',
    ]);
  });

  it('starts with the hits when no command matches, and is empty when nothing does', () => {
    expect(paletteSections([], [chat]).map((section) => [section.id, section.rows[0]?.index])).toEqual([['chat', 0]]);
    expect(paletteSections([], [])).toEqual([]);
  });
});
