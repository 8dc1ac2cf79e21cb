/**
 * `npm test`'s first run on a fresh machine installs Chromium with apt (scripts/ensure-chromium.ts):
 * a hundred lines of apt output used to scroll by. The step now says one line and how long it took,
 * and shows the kept-back output only when a command fails. Real child processes here.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runQuietly } from '../../scripts/run-quietly.ts';

function sink(): { out: PassThrough; text: () => string } {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { out, text: () => Buffer.concat(chunks).toString('utf8') };
}

const noisy = `for (let i = 0; i < 106; i++) console.log('Get:' + i + ' http://deb.example/ chromium');`;

describe('a long setup step, quietly', () => {
  it('keeps a noisy command’s output back and says one line with the time taken', async () => {
    const { out, text } = sink();
    const seconds = await runQuietly('installing', [[process.execPath, ['-e', noisy]]], { out });
    expect(seconds).toBeTypeOf('number');
    const lines = text().trimEnd().split('\n');
    expect(lines).toEqual(['installing…', expect.stringMatching(/^installing: done in \d+ s$/)]);
  });

  it('prints the kept-back output and the failing command when one fails, and stops there', async () => {
    const { out, text } = sink();
    const seconds = await runQuietly(
      'installing',
      [
        [process.execPath, ['-e', `console.log('E: Unable to locate package chromium'); process.exit(100)`]],
        [process.execPath, ['-e', `console.log('never run')`]],
      ],
      { out },
    );
    expect(seconds).toBeNull();
    expect(text()).toContain('E: Unable to locate package chromium');
    expect(text()).toMatch(/failed \(exit 100\)/);
    expect(text()).not.toContain('never run');
  });

  it('says why when a command cannot start at all', async () => {
    const { out, text } = sink();
    expect(await runQuietly('installing', [['/nonexistent/apt-get', []]], { out })).toBeNull();
    expect(text()).toMatch(/ENOENT[\s\S]*failed \(exit error\)/);
  });
});
