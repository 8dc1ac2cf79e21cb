/**
 * `npm test` runs the UI tests in Debian's Chromium (no browser download works here). On a fresh
 * Debian machine with root this installs it; anywhere else it names what to install.
 *
 * apt prints a hundred lines nobody reads before the tests start: they are kept back, and shown
 * only when apt fails. What is said instead is one line of what happens, the elapsed time while it
 * lasts (on a terminal), and how long it took.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runQuietly } from './run-quietly.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function ensureChromium(): Promise<void> {
  if (existsSync(CHROMIUM)) return;
  const canApt = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canApt) {
    process.stderr.write(`svc-node tests need Chromium at ${CHROMIUM}: install Debian's chromium package (or set CHROMIUM_PATH)\n`);
    process.exit(1);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const seconds = await runQuietly(
    'svc-node: installing Debian chromium for the UI tests (apt-get, a minute or two)',
    [
      ['apt-get', ['update', '-qq']],
      ['apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium']],
    ],
    { env },
  );
  if (seconds === null) process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await ensureChromium();
