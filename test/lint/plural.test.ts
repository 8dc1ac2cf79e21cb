/**
 * Counts in words go through one helper (renderer/src/lib/format.ts `plural`): a count written
 * straight before a plural noun reads "1 messages" when the count is one. This scans the
 * renderer's sources for an interpolated count followed by such a noun.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const SOURCES = join(ROOT, 'renderer/src');

/** Nouns the app counts. */
const NOUNS = [
  'messages',
  'lines',
  'items',
  'files',
  'versions',
  'members',
  'mails',
  'chats',
  'documents',
  'results',
  'matches',
  'identities',
  'recipients',
  'profiles',
  'changes',
  'minutes',
  'seconds',
  'hours',
  'days',
  'attempts',
  'copies',
  'scopes',
  'sessions',
  'sections',
  'metrics',
  'teams',
  'tags',
  'characters',
  'blueprints',
  'addresses',
  'links',
  'proposals',
  'entries',
];
/**
 * `${count} nouns` in a template literal, or `{{ count }} nouns` in a Vue template; an interpolation
 * holding a quote already chooses its own words ("keeps its" or "keep their").
 */
const COUNTED = new RegExp(`(\\$\\{[^}'\\x60]+\\}|\\{\\{[^}'\\x60]+\\}\\})\\s?(${NOUNS.join('|')})\\b`);

/** `=== 1 ? 'line' : 'lines'`: a plural made by hand. */
const HANDMADE = /=== 1 \? ['`]([a-z ]+)['`] : ['`]\1(e?s)['`]/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|vue)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('counts in words', () => {
  it('the pattern finds a bare count before a plural noun, and a hand-made plural', () => {
    expect(HANDMADE.test("{{ n === 1 ? 'line' : 'lines' }}")).toBe(true);
    expect(HANDMADE.test("{{ n === 1 ? 'keeps its' : 'keep their' }}")).toBe(false);
    expect(COUNTED.test('{{ lineCount(text) }} lines')).toBe(true);
    expect(COUNTED.test('`Thread: ${entries.length + 1} messages`')).toBe(true);
    expect(COUNTED.test("{{ plural(count, 'line') }}")).toBe(false);
  });

  it('the renderer says every count with plural()', () => {
    const found = sources(SOURCES).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (COUNTED.test(line) || HANDMADE.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
