/**
 * The words that run this node's own `svc-node` from any folder of this computer: the Node it
 * pins (node_modules/node, Node 24, so an older `node` on the PATH does not matter) and its
 * bin/svc-node.js, both absolute. An invited agent on this machine runs the join line with them
 * and needs nothing installed and no `svc-node` on its PATH. Null when the node runs without its
 * source folder (a packaged app): the join line then names `svc-node` and says what it needs.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding bin/svc-node.js above `from` (this file in the repository, or a bundle beside it), or null. */
function sourceRoot(from: string): string | null {
  let dir = from;
  for (let level = 0; level < 4; level += 1) {
    if (existsSync(join(dir, 'bin', 'svc-node.js')) && existsSync(join(dir, 'server', 'cli', 'main.ts'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}

let memo: readonly string[] | null | undefined;

export function selfCommandWords(): readonly string[] | null {
  if (memo !== undefined) return memo;
  const root = sourceRoot(dirname(fileURLToPath(import.meta.url)));
  if (root === null) return (memo = null);
  const pinned = join(root, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  // Without the pinned one: the Node running this node, unless that is Electron's (asked with `in`:
  // Electron's types, part of this build, declare `versions.electron` on every process).
  const node = existsSync(pinned) ? pinned : !('electron' in process.versions) ? process.execPath : null;
  return (memo = node === null ? null : [node, join(root, 'bin', 'svc-node.js')]);
}
