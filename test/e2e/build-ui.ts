/**
 * Makes sure out/ is a build of the current sources before the tests run: builds (`electron-vite
 * build`, a few seconds) when out/renderer/index.html is missing or older than the newest file under
 * renderer/ (or the preload types and the build config), or when any other source of the build
 * changed since out/ was built.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildIsCurrent, recordBuild } from '../../scripts/build-app.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const UI_INDEX = join(ROOT, 'out/renderer/index.html');

// contract/: rules the renderer bundles too (contract/core-rules.ts, contract/library-rules.ts).
const SOURCES = ['renderer', 'contract', 'preload/api.d.ts', 'electron.vite.config.ts'];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** True when out/renderer is missing or older than its sources. */
export function uiBuildIsStale(): boolean {
  if (!existsSync(UI_INDEX)) return true;
  const built = statSync(UI_INDEX).mtimeMs;
  return SOURCES.map((source) => join(ROOT, source))
    .filter((source) => existsSync(source))
    .some((source) => newestMtime(source) > built);
}

/**
 * Builds the app (main, preload, renderer) when the renderer build is stale, or when out/ is not a
 * build of every current source (scripts/build-app.ts): tests that run the bundled main process's
 * own files (test/packaging/worker-chunks.test.ts) need it current too.
 */
export function ensureUiBuilt(): void {
  if (!uiBuildIsStale() && buildIsCurrent(ROOT)) return;
  const cli = join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js');
  // process.execPath: the pinned Node that runs vitest, whatever `node` is on PATH.
  const result = spawnSync(process.execPath, [cli, 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`electron-vite build failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  if (!existsSync(UI_INDEX)) throw new Error(`electron-vite build did not produce ${UI_INDEX}`);
  // A full build of the current sources: `npm start` need not build it again.
  recordBuild(ROOT);
}
