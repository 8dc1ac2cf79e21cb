/**
 * The keyboard focus ring (renderer/src/styles/tokens.css) was a 2px gap and a 2px ring, heavy on
 * every field and button. It is now one 2px ring whose colour must still stand out: WCAG 2.2's
 * focus appearance asks 3:1 against what is next to it, here every background token of each theme.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseColor } from '../../server/surfaces/docs/domain/colors.ts';
import { contrastRatio } from '../../server/surfaces/docs/domain/contrast.ts';
import { ROOT } from '../e2e/build-ui.ts';

const css = readFileSync(join(ROOT, 'renderer/src/styles/tokens.css'), 'utf8');
const darkStart = css.indexOf('@media (prefers-color-scheme: dark)');
const THEMES = { light: css.slice(0, darkStart), dark: css.slice(darkStart) };
const BACKGROUNDS = ['--bg', '--bg-sidebar', '--surface', '--surface-raised', '--selected', '--accent-soft'];

function token(block: string, name: string): string {
  const match = new RegExp(`${name}:\\s*([^;]+);`).exec(block);
  if (!match) throw new Error(`${name} is not set here`);
  return (match[1] as string).trim();
}

describe('the focus ring', () => {
  it('is one 2px ring, outside or inside, in the focus colour', () => {
    expect(token(THEMES.light, '--focus-ring')).toBe('0 0 0 2px var(--focus-color)');
    expect(token(THEMES.light, '--focus-ring-inset')).toBe('inset 0 0 0 2px var(--focus-color)');
  });

  for (const [theme, block] of Object.entries(THEMES)) {
    it(`stands out at 3:1 or better on every ${theme} background`, () => {
      const focus = parseColor(token(block, '--focus-color'));
      expect(focus).not.toBeNull();
      for (const background of BACKGROUNDS) {
        const color = parseColor(token(block, background));
        expect(color, background).not.toBeNull();
        expect(contrastRatio(focus!, color!), `${theme} ${background}`).toBeGreaterThanOrEqual(3);
      }
    });
  }
});
