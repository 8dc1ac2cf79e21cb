/**
 * The editor's syntax colours measured as the app paints them: each token's value read from
 * styles/tokens.css, light and dark, composited over the editor's surface (the highlighted line's
 * translucent tint too) and held to WCAG AA, 4.5:1, as the theme's contrast table holds text.
 */
import { readFileSync } from 'node:fs';
import { tags, type Tag } from '@lezer/highlight';
import { describe, expect, it } from 'vitest';
import { EDITOR_BACKGROUNDS, EDITOR_SYNTAX } from '../../renderer/src/lib/editor-syntax.ts';

const css = readFileSync(new URL('../../renderer/src/styles/tokens.css', import.meta.url), 'utf8');
const darkAt = css.indexOf('@media (prefers-color-scheme: dark)');

/** A token's value in one theme (dark falls back to light for tokens it does not set). */
function token(name: string, theme: 'light' | 'dark'): string {
  const find = (part: string) => new RegExp(`${name}:\\s*([^;]+);`).exec(part)?.[1]?.trim();
  const value = theme === 'dark' ? (find(css.slice(darkAt)) ?? find(css.slice(0, darkAt))) : find(css.slice(0, darkAt));
  if (value === undefined) throw new Error(`${name} is not in tokens.css`);
  return value;
}

type Rgba = [number, number, number, number];

function parse(color: string): Rgba {
  const hex = /^#([0-9a-f]{6})$/i.exec(color);
  if (hex) return [0, 2, 4].map((i) => parseInt(hex[1]!.slice(i, i + 2), 16)).concat(1) as Rgba;
  const rgba = /^rgba?\(([^)]+)\)$/.exec(color);
  if (rgba) {
    const [r, g, b, a = '1'] = rgba[1]!.split(',').map((part) => part.trim());
    return [Number(r), Number(g), Number(b), Number(a)];
  }
  throw new Error(`cannot read colour ${color}`);
}

const over = (top: Rgba, bottom: Rgba): Rgba => [0, 1, 2].map((i) => top[i]! * top[3] + bottom[i]! * (1 - top[3])).concat(1) as Rgba;

function luminance([r, g, b]: Rgba): number {
  const lin = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function contrast(a: Rgba, b: Rgba): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe('the Markdown editor’s syntax colours', () => {
  const colours = [...new Set(EDITOR_SYNTAX.map((rule) => rule.color ?? '--text'))];

  for (const theme of ['light', 'dark'] as const) {
    it(`pass 4.5:1 on the editor’s surface and its highlighted line, ${theme}`, () => {
      const surface = parse(token('--surface', theme));
      for (const colour of colours) {
        for (const background of EDITOR_BACKGROUNDS) {
          const under = background === '--surface' ? surface : over(parse(token(background, theme)), surface);
          const ratio = contrast(parse(token(colour, theme)), under);
          expect(ratio, `${colour} on ${background} (${theme}): ${ratio.toFixed(2)}:1`).toBeGreaterThanOrEqual(4.5);
        }
      }
    });
  }

  it('never underlines a heading, and colours the markers and headings with checked tokens', () => {
    for (const rule of EDITOR_SYNTAX) expect(rule).not.toHaveProperty('textDecoration', 'underline');
    const colourOf = (tag: Tag) => EDITOR_SYNTAX.find((rule) => [rule.tag].flat().includes(tag))?.color;
    expect(colourOf(tags.processingInstruction)).toBe('--text-muted');
    expect(colourOf(tags.heading)).toBe('--text');
  });

  it('measures what CodeMirror’s default draws for the markers as failing on the dark surface (why this style exists)', () => {
    expect(contrast(parse('#404740'), parse(token('--surface', 'dark')))).toBeLessThan(4.5);
  });
});
