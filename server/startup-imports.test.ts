/**
 * The node's start stays fast because a few heavy packages load only when first needed (the MCP
 * SDK at the first /mcp request, ssh2 when a tunnel starts, markdown-it and sanitize-html at the
 * first present page or preview, and then only in the render worker's thread, never the node's
 * main thread). A plain static import anywhere on the way would undo that
 * silently, so this checks which packages loading the node pulls in. It runs in a fresh Node
 * process (vitest's own module graph would hide what Node loads) that records every resolution
 * through a module hook, which sees both `import` and `require`.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const LAZY_PACKAGES = ['@modelcontextprotocol/server', '@modelcontextprotocol/node', '@modelcontextprotocol/fastify', 'ssh2', 'markdown-it', 'sanitize-html'];

/** Imports the entries, then renders once, and reports the packages loaded by then and after. */
const SCRIPT = `
import { registerHooks } from 'node:module';
const loaded = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    const path = result.url.split('/node_modules/')[1];
    if (path) loaded.add(path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]);
    return result;
  },
});
const [entries, renderer] = JSON.parse(process.argv[1]);
for (const entry of entries) await import(entry);
const atStart = [...loaded];
const { renderMarkdownLazily } = await import(renderer);
const html = await renderMarkdownLazily('# hi', { assetIds: new Set(), assetUrl: (id) => id });
process.stdout.write(JSON.stringify({ atStart, afterRender: [...loaded], html }));
`;

function packagesLoaded(): { atStart: string[]; afterRender: string[]; html: string } {
  const entries = ['./index.ts', './cli/serve.ts'].map((path) => new URL(path, import.meta.url).href);
  const renderer = new URL('./markdown/lazy.ts', import.meta.url).href;
  const output = execFileSync(process.execPath, ['--input-type=module', '--eval', SCRIPT, JSON.stringify([entries, renderer])], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(output) as { atStart: string[]; afterRender: string[]; html: string };
}

describe('startup imports', () => {
  let atStart: string[] = [];
  let afterRender: string[] = [];
  let html = '';
  beforeAll(() => {
    ({ atStart, afterRender, html } = packagesLoaded());
  });

  it('loads the node without the MCP SDK, ssh2, markdown-it or sanitize-html', () => {
    // The hook works: the packages every start needs are seen.
    expect(atStart).toEqual(expect.arrayContaining(['fastify', 'zod', 'better-sqlite3-multiple-ciphers']));
    expect(atStart.filter((name) => LAZY_PACKAGES.includes(name))).toEqual([]);
  });

  it('renders in the worker: the first render works, and the main thread still never loads the renderer', () => {
    // The script exits by itself too: an idle render worker never keeps a process alive.
    expect(html).toBe('<h1>hi</h1>\n');
    expect(afterRender.filter((name) => LAZY_PACKAGES.includes(name))).toEqual([]);
  });
});
