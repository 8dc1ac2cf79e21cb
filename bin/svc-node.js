#!/usr/bin/env node
// The svc-node command. The node is TypeScript run by Node's type stripping, so it needs the
// Node 24 the project pins: `npx svc-node` and npm scripts put that one first on PATH.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The Node the project runs on is stated once, in package.json's `engines`; this reads it rather
// than repeating it, and is written so that any older Node gets this sentence, not a syntax error.
const manifest = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8'));
const needed = Number(/^>=\s*(\d+)/.exec(manifest.engines.node)[1]);
if (Number(process.versions.node.split('.')[0]) < needed) {
  process.stderr.write(`svc-node: needs Node ${needed} (this is ${process.version}); run it as \`npx svc-node\` inside the project\n`);
  process.exit(1);
}

/**
 * Node's module compile cache keeps each module's type-stripped source and V8 code between runs,
 * which roughly halves the time `serve` takes to its ready line. NODE_COMPILE_CACHE still chooses
 * the directory (and NODE_DISABLE_COMPILE_CACHE=1 turns it off); otherwise it is a private per-user
 * cache folder rather than Node's default under the shared os.tmpdir(), where another local user
 * could plant cached code. Never the data dir nor the repo. It is only an optimisation: when the
 * folder cannot be made, the node starts without it.
 */
function compileCacheDir() {
  if (process.platform === 'win32') return join(process.env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'svc-node', 'compile-cache');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'svc-node', 'compile-cache');
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc-node', 'compile-cache');
}

// One level at a time: Node's recursive mkdir (also used by enableCompileCache) spins forever
// where mkdir answers ENOENT under a parent that exists (procfs), and a start must never hang.
function makePrivateDir(dir) {
  const missing = [];
  for (let d = dir; !existsSync(d); d = dirname(d)) {
    if (dirname(d) === d) throw new Error(`no such root: ${d}`);
    missing.unshift(d);
  }
  for (const d of missing) mkdirSync(d, { mode: 0o700 });
}

try {
  if (process.env.NODE_COMPILE_CACHE) {
    module.enableCompileCache?.();
  } else {
    const dir = compileCacheDir();
    makePrivateDir(dir);
    module.enableCompileCache?.(dir);
  }
} catch {
  // Startup is only slower without the cache.
}
await import('../server/cli/main.ts');
