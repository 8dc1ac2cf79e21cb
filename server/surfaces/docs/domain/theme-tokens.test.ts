import { describe, expect, it } from 'vitest';
import { contrastReport, effectivePalettes, sanitizeTokens, TEXT_ROLES } from './theme-tokens.ts';

const rolesOf = (report: ReturnType<typeof contrastReport>) => report.map((p) => [p.palette, p.checks.map((c) => [c.role, c.passes])]);

describe('contrastReport: every text colour a page paints, muted text, links and code too', () => {
  it('passes the svc palettes in every role, light and dark', () => {
    const report = contrastReport({ layout: { color_scheme: 'auto' } }, null);
    expect(report.map((p) => p.palette)).toEqual(['light', 'dark']);
    for (const palette of report) {
      expect(palette.checks.map((c) => c.role)).toEqual([...TEXT_ROLES]);
      for (const check of palette.checks) expect(check.ratio, `${palette.palette} ${check.role}`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('measures links as the accent on the surface: a plum accent fails on dark, passes on light', () => {
    const dark = contrastReport({ colors: { accent: '#8a1c7c' }, layout: { color_scheme: 'dark' } }, null)[0]!;
    const link = dark.checks.find((c) => c.role === 'link')!;
    expect(link).toMatchObject({ foreground: '#8a1c7c', on: 'surface', background: '#161b22', passes: false });
    expect(link.ratio).toBeCloseTo(2.1, 1);
    // Text on surface, the fields published first, is unaffected.
    expect(dark.passes).toBe(true);
    const light = contrastReport({ colors: { accent: '#8a1c7c' } }, null)[0]!;
    expect(light.checks.find((c) => c.role === 'link')!.passes).toBe(true);
  });

  it('measures code text on the surface under the code tint, composited', () => {
    const [light] = contrastReport({ colors: { text: '#767676' } }, null);
    const code = light!.checks.find((c) => c.role === 'code')!;
    expect(code.background).toBe('#f5f5f5');
    expect(code.ratio).toBeCloseTo(4.16, 2);
    expect(code.passes).toBe(false);
    expect(light!.checks[0]!).toMatchObject({ role: 'text', passes: true });
    // On a dark surface the tint darkens it further: #161b22 under 4% black.
    const [dark] = contrastReport({ layout: { color_scheme: 'dark' } }, null);
    expect(dark!.checks.find((c) => c.role === 'code')!.background).toBe('#151a21');
  });

  it('fails closed on alpha in any colour it measures, and only there', () => {
    const report = contrastReport({ colors: { muted: '#57606a80' } }, null);
    expect(rolesOf(report)).toEqual([
      [
        'light',
        [
          ['text', true],
          ['muted', false],
          ['link', true],
          ['code', true],
        ],
      ],
    ]);
    expect(report[0]!.checks[1]!.ratio).toBeNull();
  });
});

describe('per-palette colours: the dark palette’s own when the page follows the reader’s system', () => {
  it('keeps valid dark colours and drops the rest', () => {
    expect(sanitizeTokens({ dark_colors: { text: ' #eee ', muted: 'nope', other: '#fff' } })).toEqual({ dark_colors: { text: '#eee' } });
    expect(sanitizeTokens({ dark_colors: 'x' })).toEqual({});
  });

  it('paints them over the shared colours in the dark palette of an auto page only', () => {
    const tokens = { colors: { text: '#111111', accent: '#0a5dbd' }, dark_colors: { text: '#eeeeee' }, layout: { color_scheme: 'auto' as const } };
    const [light, dark] = effectivePalettes(tokens, null);
    expect(light!.palette).toMatchObject({ text: '#111111', accent: '#0a5dbd' });
    expect(dark!.palette).toMatchObject({ text: '#eeeeee', accent: '#0a5dbd' });
    expect(effectivePalettes({ ...tokens, layout: { color_scheme: 'dark' } }, null)[0]!.palette.text).toBe('#111111');
    // A theme saved before they existed reads the same.
    expect(effectivePalettes({ colors: { text: '#111111' }, layout: { color_scheme: 'auto' } }, null)[1]!.palette.text).toBe('#111111');
  });

  it('lets a text colour pass in both palettes through each its own', () => {
    const shared = contrastReport({ colors: { text: '#1a1a1a' }, layout: { color_scheme: 'auto' } }, null);
    expect(shared.map((p) => p.passes)).toEqual([true, false]);
    const own = contrastReport({ colors: { text: '#1a1a1a' }, dark_colors: { text: '#f0f0f0' }, layout: { color_scheme: 'auto' } }, null);
    expect(own.map((p) => p.passes)).toEqual([true, true]);
  });
});
