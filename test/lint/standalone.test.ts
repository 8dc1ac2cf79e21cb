/**
 * The repository stands alone: no source, script, config or test reaches outside it for files
 * (the team's design notes used to sit in a folder beside the checkout). CI proves it by running
 * from a clone with nothing beside it (.ci/run); this names the offending line sooner.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const CHECKED = /\.(ts|vue|js|cjs|mjs|json|ya?ml|sh|html)$|^\.ci\/run$|^\.npmrc$/;
// Paths that climb out of the repository towards a sibling folder, as code would spell them.
const OUTSIDE = /(\.\.\/)+shared\b|\/work\/shared\b/;

describe('a self-contained repository', () => {
  it('has no file that reads from beside the checkout', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      // Tracked files deleted in the working tree are gone already.
      .filter((file) => CHECKED.test(file) && file !== 'test/lint/standalone.test.ts' && existsSync(`${root}${file}`));
    expect(files.length).toBeGreaterThan(100);
    const offending = files.flatMap((file) =>
      readFileSync(`${root}${file}`, 'utf8')
        .split('\n')
        .flatMap((line, index) => (OUTSIDE.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(offending).toEqual([]);
  });
});
