/**
 * `npm start`: builds the app only when out/ is not a build of the current sources (so never right
 * after `npm install`, which built it), then the desktop app where Electron can launch; otherwise
 * one line saying why, and the headless node instead (its ready line carries the UI URL).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp } from './build-app.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const electronDir = `${root}node_modules/electron/`;

/** The Electron binary, or why it cannot run here. Never triggers Electron's lazy download. */
function electronBinary(): { path: string } | { reason: string } {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { reason: 'no display (DISPLAY/WAYLAND_DISPLAY unset)' };
  }
  const pathFile = `${electronDir}path.txt`;
  const binary = existsSync(pathFile) ? `${electronDir}dist/${readFileSync(pathFile, 'utf8').trim()}` : null;
  if (binary === null || !existsSync(binary)) return { reason: 'the Electron binary is not installed (run `npx install-electron` on a networked machine)' };
  return { path: binary };
}

const seconds = buildApp(root);
if (seconds !== null) process.stdout.write(`svc-node: built in ${seconds.toFixed(1)} s\n`);
const electron = electronBinary();
if ('path' in electron) {
  const child = spawn(electron.path, [root, ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  process.stderr.write(`svc-node: the desktop app cannot launch here: ${electron.reason}; running the headless node instead\n`);
  process.argv = [process.argv[0] as string, `${root}bin/svc-node.js`, 'serve', ...process.argv.slice(2)];
  await import('../server/cli/main.ts');
}
