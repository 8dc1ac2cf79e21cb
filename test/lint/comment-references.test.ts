/**
 * Comments say why in words: no source, test, config or migration file cites an issue number or
 * the team's research notes. Neither is in the repository, so a reader of "(issue 14)" or
 * "research B7" learns nothing and cannot look it up; the reason belongs in the comment, and a
 * decision several files lean on belongs in an ADR under docs/adr/, cited by its path.
 *
 * The service spec and the design and UI notes are copies of documents kept elsewhere, with their
 * own references, and are left as they are.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const CHECKED = /\.(ts|vue|js|cjs|mjs|json|ya?ml|sh|html|sql|css)$|^\.ci\/run$|^\.npmrc$|^ARCHITECTURE\.md$|^README\.md$|^docs\/.*\.md$/;
const EXEMPT = /^docs\/(spec\/|DESIGN\.md$|UI\.md$)|^test\/lint\/comment-references\.test\.ts$/;
/**
 * An issue number ("issue 14", "Issue 5's", "issues 12 and 13", "#19" after "issue"), an issue
 * named without one ("the issue's theme"), a path into the notes folder, a note's name, or a note's
 * section ("research B7", "research anchor-core §7").
 */
const REFERENCE = /\bissues? #?\d+|\bthe issue's\b|\bresearch\/|\banchor-(core|ecosystem|library-docs)\b|\bfeasibility\.md\b|\bresearch (anchor|[A-D]\d)/i;

/** The offending lines of `text`, as `file:line: text`. */
function citedReferences(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, index) => (REFERENCE.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

describe('comments say why in words', () => {
  it('recognises each way a reference has been spelled', () => {
    const spelled = [
      '// Mail folders (issue 14).',
      " * Issue 5's benchmarks (the document surface)",
      '-- Search (issue 18): full-text search',
      " it('transliterates letters (issue 14)', () => {",
      ' * Contacts (research/anchor-core.md §10.4): the addresses',
      ' * Team certificates (research anchor-core §7): a team key',
      ' * Assets (research B7, C4): images sent as base64',
      '# run on the build VMs nor in CI (research/feasibility.md §8).',
      '   * Also accept the compact form (anchor-core §6.2)',
      "    // The issue's attack made the node GET the internal URL three times.",
    ];
    expect(spelled.flatMap((line) => citedReferences('x.ts', line))).toHaveLength(spelled.length);
    // Words that only look alike: a research topic, an issued certificate, a colour.
    expect(citedReferences('x.ts', "blueprint(['research', 'support']); issued 2 certificates; color: '#111'")).toEqual([]);
  });

  it('has no file that cites an issue number or a research note', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      // Tracked files deleted in the working tree are gone already.
      .filter((file) => CHECKED.test(file) && !EXEMPT.test(file) && existsSync(`${root}${file}`));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => citedReferences(file, readFileSync(`${root}${file}`, 'utf8')))).toEqual([]);
  });
});
