/**
 * Builds the app into out/ once per set of sources. `npm install` (scripts/prepare.ts) builds it,
 * and `npm start` (scripts/start.ts) right after must not build it again: the build records a hash
 * of everything it is made from in out/.source-hash, and a later call builds only when that hash
 * differs. A hash of the contents rather than file times, because a fresh clone, a checkout or an
 * editor's save without change all move times without changing what would be built.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What the three builds read: the sources, the build config, and the dependencies' versions. */
export const BUILD_INPUTS = [
  'main',
  'preload',
  'renderer',
  'server',
  'contract',
  'electron.vite.config.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.node.json',
  'tsconfig.web.json',
];

/** Where the hash of the sources of the build in out/ is kept. */
export const STAMP = 'out/.source-hash';

/** Files a build produces; without them there is nothing current, whatever the stamp says. */
const OUTPUTS = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];

/** Tests are never bundled: editing one does not make the build stale. */
function isBuildInput(name: string): boolean {
  return !name.startsWith('.') && name !== 'node_modules' && !/\.test\.ts$/.test(name);
}

function filesUnder(path: string, into: string[]): void {
  if (!existsSync(path)) return;
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    into.push(path); // a file
    return;
  }
  for (const entry of entries) {
    if (!isBuildInput(entry.name)) continue;
    const child = join(path, entry.name);
    if (entry.isDirectory()) filesUnder(child, into);
    else if (entry.isFile()) into.push(child);
  }
}

/** The hash of every build input under `root`: each file's path and contents, in a stable order. */
export function sourceHash(root: string, inputs: readonly string[] = BUILD_INPUTS): string {
  const files: string[] = [];
  for (const input of inputs) filesUnder(join(root, input), files);
  const hash = createHash('sha256');
  for (const file of files.map((path) => relative(root, path).split('\\').join('/')).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when out/ holds a build of exactly the current sources. */
export function buildIsCurrent(root: string, inputs: readonly string[] = BUILD_INPUTS): boolean {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp) || OUTPUTS.some((output) => !existsSync(join(root, output)))) return false;
  return readFileSync(stamp, 'utf8').trim() === sourceHash(root, inputs);
}

/** Records that out/ is a build of the current sources. */
export function recordBuild(root: string, inputs: readonly string[] = BUILD_INPUTS): void {
  mkdirSync(join(root, 'out'), { recursive: true });
  writeFileSync(join(root, STAMP), `${sourceHash(root, inputs)}\n`);
}

/**
 * Builds the app unless out/ is already a build of these sources. Prints one line of progress; the
 * build's own warnings and errors still print, and a failed build ends the process. Returns how
 * many seconds the build took, or null when nothing needed building.
 */
export function buildApp(root: string): number | null {
  if (buildIsCurrent(root)) return null;
  const started = performance.now();
  process.stdout.write('svc-node: building the app into out/…\n');
  const cli = join(root, 'node_modules/electron-vite/bin/electron-vite.js');
  // process.execPath: the pinned Node that runs this script, whatever `node` is on PATH.
  const result = spawnSync(process.execPath, [cli, 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    process.stderr.write(`svc-node: the build failed (electron-vite exit ${result.status ?? result.signal})\n`);
    process.exit(result.status ?? 1);
  }
  recordBuild(root);
  return (performance.now() - started) / 1000;
}
