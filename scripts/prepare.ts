/**
 * `npm install`'s prepare step: build the app into out/ (unless out/ already holds a build of these
 * very sources, scripts/build-app.ts), and load the whole node once so Node's compile cache is warm
 * for the first start (see docs/command-line.md). It prints a line of progress instead of the
 * build's file list; the build's warnings and errors still print, and a failure fails the install.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildApp } from './build-app.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs a step whose output is of no interest; its errors still print, and a failure fails the install. */
function runQuietly(command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) {
    process.stderr.write(`svc-node: \`${[command, ...args].join(' ')}\` failed during install\n`);
    process.exit(result.status ?? 1);
  }
}

// npm puts node_modules/.bin first on PATH, so `node` is the pinned Node 24.
const seconds = buildApp(root);
runQuietly(process.execPath, ['bin/svc-node.js', 'version']);

const npmNode = process.env.npm_node_execpath;
const npmNodeVersion = npmNode ? spawnSync(npmNode, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
const also = npmNodeVersion && npmNodeVersion !== process.version ? ` (npm itself ran on Node ${npmNodeVersion})` : '';
process.stdout.write(
  `svc-node: ${seconds === null ? 'out/ is current' : `built into out/ in ${seconds.toFixed(1)} s`}; the node, its scripts and tests run on the pinned Node ${process.version}${also}\n`,
);
