/**
 * Layout is Prettier's: every file it owns (all but those `.prettierignore` names) is as
 * `npm run format` leaves it, so a review never argues about line breaks. ESLint's layout rules
 * are off (eslint-config-prettier comes last), so the two never disagree.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);

describe('Formatting', () => {
  it('every file Prettier owns is formatted', { timeout: 120_000 }, async () => {
    const unformatted: string[] = [];
    for (const file of tracked) {
      const path = root + file;
      const info = await prettier.getFileInfo(path, { ignorePath: root + '.prettierignore' });
      if (info.ignored || info.inferredParser === null) continue;
      const options = await prettier.resolveConfig(path);
      const text = readFileSync(path, 'utf8');
      if (!(await prettier.check(text, { ...options, filepath: path }))) unformatted.push(file);
    }
    expect(unformatted, 'run `npm run format`').toEqual([]);
  });

  it('runs in lint, after ESLint with every layout rule off', async () => {
    const scripts = (JSON.parse(readFileSync(root + 'package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.lint).toMatch(/prettier --check \./);
    const { ESLint } = await import('eslint');
    const config = (await new ESLint({ cwd: root }).calculateConfigForFile(root + 'server/index.ts')) as { rules: Record<string, unknown> };
    for (const rule of ['indent', 'max-len', 'vue/html-indent', 'vue/max-attributes-per-line', '@stylistic/indent']) {
      const setting = config.rules[rule];
      expect(setting === undefined || (Array.isArray(setting) ? setting[0] : setting) === 0 || setting === 'off', rule).toBe(true);
    }
  });
});
