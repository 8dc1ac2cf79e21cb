/**
 * The renderer's first load. It used to be one 2 MB JavaScript chunk (CodeMirror, the Shelf's
 * diffs, every view) before the first screen showed anything; views are now loaded when first
 * opened (renderer/src/router.ts). This reads the build in out/renderer and adds up the
 * JavaScript the page loads before it can run: the entry index.html names, what it preloads, and
 * everything those import statically (a dynamic `import()` is left out: that is a view loaded
 * later). The budget is 600 KB before compression.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureUiBuilt, ROOT } from '../e2e/build-ui.ts';

const OUT = join(ROOT, 'out/renderer');
const BUDGET_BYTES = 600 * 1000;

/** `./assets/x.js` paths named by index.html: the module entry and its modulepreloads. */
function htmlScripts(html: string): string[] {
  const found = new Set<string>();
  for (const match of html.matchAll(/<script\b[^>]*\btype="module"[^>]*\bsrc="([^"]+)"/g)) found.add(match[1] as string);
  for (const match of html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)) found.add(match[1] as string);
  return [...found];
}

/**
 * The relative modules a chunk imports statically (`import … from "./x.js"`, `import "./x.js"`,
 * `export … from "./x.js"`), minified or not. `import("./x.js")` never matches: `(` is no quote.
 */
export function staticImports(code: string): string[] {
  const pattern = /\b(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g;
  return [...code.matchAll(pattern)].map((match) => match[1] as string);
}

/** Every chunk loaded before the app runs: the HTML's scripts and their static imports, transitively. */
function eagerChunks(): Map<string, number> {
  const html = readFileSync(join(OUT, 'index.html'), 'utf8');
  const sizes = new Map<string, number>();
  const queue = htmlScripts(html).map((src) => posix.normalize(src.replace(/^\.\//, '')));
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (sizes.has(file)) continue;
    const path = join(OUT, file);
    sizes.set(file, statSync(path).size);
    for (const imported of staticImports(readFileSync(path, 'utf8'))) queue.push(posix.join(posix.dirname(file), imported));
  }
  return sizes;
}

beforeAll(() => {
  ensureUiBuilt(); // no-op when the globalSetup already built it
}, 120_000);

describe('the renderer’s first load', () => {
  it('reads static imports and leaves dynamic ones out', () => {
    const code = 'import{a as b}from"./vue-1.js";import "./side.js";export { c } from "./d.js";const v=()=>import("./View-2.js");';
    expect(staticImports(code)).toEqual(['./vue-1.js', './side.js', './d.js']);
  });

  it(`loads at most ${BUDGET_BYTES / 1000} KB of JavaScript before the first screen`, () => {
    const chunks = eagerChunks();
    const total = [...chunks.values()].reduce((sum, size) => sum + size, 0);
    const listing = [...chunks].map(([file, size]) => `${file} ${(size / 1000).toFixed(1)} KB`).join(', ');
    expect(chunks.size, listing).toBeGreaterThan(0);
    expect(total, `eager JavaScript ${(total / 1000).toFixed(1)} KB: ${listing}`).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('keeps every view and the editor out of the first load', () => {
    const eager = [...eagerChunks().keys()];
    for (const view of ['MailView', 'ChatView', 'DocumentsView', 'ShelfView', 'IdentitiesView', 'SettingsView', 'SetupView']) {
      expect(
        eager.filter((file) => file.includes(view)),
        view,
      ).toEqual([]);
    }
    const code = eager.map((file) => readFileSync(join(OUT, file), 'utf8')).join('\n');
    expect(code).not.toContain('@codemirror');
    expect(code).not.toContain('markdown-it');
  });
});
