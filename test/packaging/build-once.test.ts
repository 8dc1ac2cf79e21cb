/**
 * `npm install` builds the app and `npm start` must not build it again: scripts/build-app.ts keeps
 * a hash of the build's sources beside the build. These run it on a small tree of its own.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, buildIsCurrent, recordBuild, sourceHash } from '../../scripts/build-app.ts';
import { ROOT } from '../e2e/build-ui.ts';

const INPUTS = ['renderer', 'server', 'electron.vite.config.ts', 'package.json'];
let root: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-node-build-once-'));
  write('renderer/src/main.ts', 'export const a = 1;\n');
  write('server/app.ts', 'export const b = 2;\n');
  write('server/app.test.ts', 'it("x", () => {});\n');
  write('electron.vite.config.ts', 'export default {};\n');
  write('package.json', '{}\n');
  for (const output of ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html']) write(output, 'built');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('building once per set of sources', () => {
  it('is current right after a build is recorded, and buildApp then builds nothing', () => {
    expect(buildIsCurrent(root, INPUTS)).toBe(false);
    recordBuild(root, INPUTS);
    expect(buildIsCurrent(root, INPUTS)).toBe(true);
    // The real inputs of this tree's build are the repository's list; record with those for buildApp.
    recordBuild(root);
    expect(buildApp(root)).toBeNull();
  });

  it('follows contents, not file times: a touched file is still current, a changed one is not', () => {
    recordBuild(root, INPUTS);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'renderer/src/main.ts'), later, later);
    expect(buildIsCurrent(root, INPUTS)).toBe(true);
    write('renderer/src/main.ts', 'export const a = 3;\n');
    expect(buildIsCurrent(root, INPUTS)).toBe(false);
  });

  it('sees a new file, a renamed one and the build config, but not a test file', () => {
    const before = sourceHash(root, INPUTS);
    write('server/app.test.ts', 'it("y", () => {});\n');
    expect(sourceHash(root, INPUTS)).toBe(before);
    write('server/extra.ts', '');
    const withExtra = sourceHash(root, INPUTS);
    expect(withExtra).not.toBe(before);
    rmSync(join(root, 'server/extra.ts'));
    write('server/other.ts', '');
    expect(sourceHash(root, INPUTS)).not.toBe(withExtra);
    write('electron.vite.config.ts', 'export default { x: 1 };\n');
    expect(sourceHash(root, INPUTS)).not.toBe(before);
  });

  it('is not current when an output is missing, whatever the stamp says', () => {
    recordBuild(root, INPUTS);
    rmSync(join(root, 'out/renderer/index.html'));
    expect(buildIsCurrent(root, INPUTS)).toBe(false);
  });

  it('npm start builds through the same check, not unconditionally', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe('node scripts/start.ts');
    expect(readFileSync(join(ROOT, 'scripts/start.ts'), 'utf8')).toMatch(/buildApp\(root\)/);
    expect(scripts.prepare).toBe('node scripts/prepare.ts');
    expect(readFileSync(join(ROOT, 'scripts/prepare.ts'), 'utf8')).toMatch(/buildApp\(root\)/);
  });
});
