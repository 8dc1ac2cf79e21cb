// @vitest-environment jsdom
/**
 * Commands by name: the palette runs a view's command through the view's own shortcut, the
 * innermost view on screen that offers it, and hears when none does or it does not apply now.
 */
import { describe, expect, it } from 'vitest';
import { runCommand, useShortcuts } from './useShortcuts.ts';

describe('runCommand', () => {
  it('runs the shortcut that carries the name, in the innermost group offering it', () => {
    expect(runCommand('mail.new')).toBe(false);
    const ran: string[] = [];
    useShortcuts('Mail', () => [{ keys: ['c'], label: 'New mail', command: 'mail.new', run: () => void ran.push('mail') }]);
    useShortcuts('Compose', () => [{ keys: ['c'], label: 'Again', command: 'mail.new', run: () => void ran.push('inner') }]);
    expect(runCommand('mail.new')).toBe(true);
    expect(ran).toEqual(['inner']);
  });

  it('says when the command does not apply now', () => {
    useShortcuts('Teams', () => [{ keys: ['i'], label: 'Invite an agent', command: 'teams.invite', run: () => false }]);
    expect(runCommand('teams.invite')).toBe(false);
  });
});
