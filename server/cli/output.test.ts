/**
 * The CLI's two guards on what it prints: a node's text shown terminal-safe, and the command
 * lines it suggests read by a real POSIX shell as the very words they were built from.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellCommand, shellQuote, terminalLines, terminalText } from './output.ts';

describe('terminalText', () => {
  it('shows every control character, bidi control and line break as an escape, and leaves the rest', () => {
    expect(terminalText('ok: Ünïcode ✓ and "quotes" \\x1b as typed')).toBe('ok: Ünïcode ✓ and "quotes" \\x1b as typed');
    expect(terminalText('\u001b[31mred\u001b[0m\u0007')).toBe('\\x1b[31mred\\x1b[0m\\x07');
    expect(terminalText('a\r\nb\tc\u0000')).toBe('a\\x0d\\x0ab\\x09c\\x00');
    expect(terminalText('\u009b2J \u007f \u202eevil \u2066x\u2069 \u2028')).toBe('\\x9b2J \\x7f \\u202eevil \\u2066x\\u2069 \\u2028');
  });

  it('keeps at most the given length, and made safe once it stays as it is', () => {
    expect(terminalText('x'.repeat(600))).toBe(`${'x'.repeat(500)}…`);
    expect(terminalText('abcdef', 3)).toBe('abc…');
    const once = terminalText('\u001b]0;title\u0007');
    expect(terminalText(once)).toBe(once);
  });

  it('keeps the line breaks of text laid out by the CLI itself, and nothing else', () => {
    expect(terminalLines('one\n  two \u001b[2J\n')).toBe('one\n  two \\x1b[2J\n');
  });
});

describe('shellQuote', () => {
  const tricky = [
    'plain',
    'http://127.0.0.1:7420/v1/team/join',
    'crew:example.com',
    '',
    'with space',
    "it's",
    '$(touch pwned)',
    '`id`',
    'a;b&c|d>e<f',
    '*?[x]~{a,b}',
    '$HOME ${IFS}',
    '"double" \\back\\',
    'new\nline',
    '-starts-with-dash',
    'ünï ✓',
  ];

  it('leaves a word a shell takes literally as it is', () => {
    expect(shellQuote('crew:example.com')).toBe('crew:example.com');
    expect(shellQuote('/tmp/agent-1/.aw')).toBe('/tmp/agent-1/.aw');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it('makes a command line /bin/sh splits into exactly the words given, nothing expanded or run', () => {
    const line = shellCommand('printf', '%s\\0', ...tricky);
    const out = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8', cwd: '/' });
    expect(out.split('\0').slice(0, -1)).toEqual(tricky);
  });
});
