/**
 * The Node the project runs on is stated once: package.json's `engines`. The pinned `node` dev
 * dependency (the runtime of every script, test and `npx svc-node`) must be that version, and the
 * command's own check reads `engines` instead of spelling a number that could drift from it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe('one Node version', () => {
  const stated = /^>=(\d+)$/.exec(manifest.engines.node);

  it('is stated in engines as a major version', () => {
    expect(stated?.[1]).toMatch(/^\d+$/);
  });

  it('is the version the project pins as its runtime', () => {
    expect(manifest.devDependencies.node).toMatch(new RegExp(`^\\^${stated?.[1]}\\.`));
    expect(process.versions.node.split('.')[0]).toBe(stated?.[1]);
  });

  it('is not repeated by the command line entry point', () => {
    const bin = readFileSync(`${root}bin/svc-node.js`, 'utf8');
    expect(bin).toContain('manifest.engines.node');
    expect(bin.match(/\b(?:major|minor)\s*[<>]=?\s*\d+/g)).toBeNull();
  });

  it('is what an older Node is told it needs', () => {
    // Run the entry point as if on Node 20 by shadowing process.versions before it loads.
    const script = `Object.defineProperty(process.versions, 'node', { value: '20.0.0' }); await import(${JSON.stringify(`${root}bin/svc-node.js`)});`;
    let stderr = '';
    try {
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      stderr = String((error as { stderr?: string }).stderr);
    }
    expect(stderr).toContain(`needs Node ${stated?.[1]}`);
  });
});
