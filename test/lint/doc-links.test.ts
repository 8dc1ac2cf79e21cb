/**
 * The README and the documents under docs/ link to each other and into the repository by
 * relative paths: every such link must reach a file or folder that exists, and a `#anchor` must
 * name a heading of the Markdown file it points into, so moving or renaming a section breaks
 * this test rather than a reader's click.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingAnchors, links } from '../support/markdown.ts';

const root = new URL('../../', import.meta.url).pathname;

/** The documents checked: the README, the architecture map and everything under docs/. */
const documents = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'README.md', 'ARCHITECTURE.md', 'docs'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file.endsWith('.md') && existsSync(join(root, file)));

/** A link this test does not follow: to another site, or a mail address. */
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** What is wrong with `target` as written in `file`, or null when it resolves. */
function brokenLink(file: string, target: string): string | null {
  const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = path === '' ? join(root, file) : join(root, dirname(file), decodeURIComponent(path));
  if (!resolved.startsWith(root)) return 'leaves the repository';
  if (!existsSync(resolved)) return `no such file: ${relative(root, resolved)}`;
  if (anchor === undefined || anchor === '') return null;
  if (!resolved.endsWith('.md') || !statSync(resolved).isFile()) return null;
  return headingAnchors(readFileSync(resolved, 'utf8')).has(anchor) ? null : `no heading #${anchor} in ${relative(root, resolved)}`;
}

describe('links in the README and docs/', () => {
  it('finds the documents', () => {
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'docs/DESIGN.md']));
  });

  it('resolve to a file of the repository, and an anchor to a heading there', () => {
    const broken = documents.flatMap((file) =>
      links(readFileSync(join(root, file), 'utf8'))
        .filter(({ target }) => !EXTERNAL.test(target))
        .flatMap(({ line, target }) => {
          const problem = brokenLink(file, target);
          return problem === null ? [] : [`${file}:${line}: (${target}) ${problem}`];
        }),
    );
    expect(broken).toEqual([]);
  });
});

describe('the anchors GitHub gives headings', () => {
  it('drop punctuation, join words with hyphens and number repeats', () => {
    expect([
      ...headingAnchors("# The node's public edge\n## Signatures, sessions and the lock\n### `svc-node ui`\n## DNS\n## DNS\n```\n# not a heading\n```\n"),
    ]).toEqual(['the-nodes-public-edge', 'signatures-sessions-and-the-lock', 'svc-node-ui', 'dns', 'dns-1']);
  });
});
