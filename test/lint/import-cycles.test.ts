/**
 * No import cycles anywhere: a cycle hides which module a rule belongs to, and in ESM
 * it can hand a module a binding before it is initialised. dpdm parses every module of the node,
 * the shared contract, the Electron main process and the renderer's scripts, type-only imports
 * included (they tie modules together just as much for a reader).
 */
import { parseCircular, parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const SOURCES = ['server/**/*.ts', 'contract/**/*.ts', 'main/**/*.ts', 'preload/**/*.ts', 'renderer/src/**/*.ts', 'bin/**/*.ts', 'scripts/**/*.ts'];

describe('the import graph', () => {
  it('has no cycle', async () => {
    const tree = await parseDependencyTree(SOURCES, { context: root, transform: false, skipDynamicImports: false });
    expect(Object.keys(tree).length).toBeGreaterThan(300);
    const cycles = parseCircular(tree).map((cycle) => cycle.join(' -> '));
    expect(cycles).toEqual([]);
  });

  it('would notice one', async () => {
    // The detector itself: these two test fixtures import each other.
    const tree = await parseDependencyTree(['test/lint/fixtures/cycle-*.ts'], { context: root, transform: false });
    expect(parseCircular(tree).length).toBe(1);
  });
});
