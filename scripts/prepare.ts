/**
 * `npm install`'s prepare step: build the app into out/, and load the whole node once so Node's
 * compile cache is warm for the first start (see README, "The command line"). It prints one line
 * instead of the build's file list; the build's warnings and errors still print, and a failure
 * fails the install.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function run(command: string, args: string[], quiet: boolean): void {
  const result = spawnSync(command, args, { cwd: root, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`svc-node: \`${[command, ...args].join(' ')}\` failed during install\n`);
    process.exit(result.status ?? 1);
  }
}

// npm puts node_modules/.bin first on PATH, so `node` is the pinned Node 24 and electron-vite the project's.
run('electron-vite', ['build', '--logLevel', 'warn'], false);
run(process.execPath, ['bin/svc-node.js', 'version'], true);

const npmNode = process.env.npm_node_execpath;
const npmNodeVersion = npmNode ? spawnSync(npmNode, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
const also = npmNodeVersion && npmNodeVersion !== process.version ? ` (npm itself ran on Node ${npmNodeVersion})` : '';
process.stdout.write(`svc-node: built into out/; the node, its scripts and tests run on the pinned Node ${process.version}${also}\n`);
