/**
 * `npm test` runs the UI tests in Debian's Chromium (no browser download works here). On a fresh
 * Debian machine with root this installs it; anywhere else it names what to install.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!existsSync(CHROMIUM)) {
  const canApt = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canApt) {
    process.stderr.write(`svc-node tests need Chromium at ${CHROMIUM}: install Debian's chromium package (or set CHROMIUM_PATH)\n`);
    process.exit(1);
  }
  process.stderr.write('svc-node: installing Debian chromium for the UI tests (apt-get install chromium)\n');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
}
