import { describe, expect, it } from 'vitest';
import type { Theme } from '../api/docs.ts';
import {
  base64OfDataUrl,
  colorProblem,
  contrastBlock,
  darkBasePalette,
  contrastTable,
  draftFromForm,
  emptyForm,
  formatRatio,
  formFromTheme,
  logoProblem,
  normalizeHex,
  resetTokens,
  SAMPLE_BODY,
  sampleBody,
  swatchValue,
  themeInputFromForm,
  tokensFromForm,
  type ContrastReport,
} from './theme-form.ts';

const saved: Theme = {
  tokens: { colors: { text: '#111111', accent: '#0a5dbd' }, fonts: { heading: 'serif' }, layout: { measure: 'wide', color_scheme: 'auto' } },
  preset: 'svc',
  logo_asset_id: 'a1',
  logo_url: 'http://127.0.0.1:4000/assets/a1',
  header: 'Acme',
  footer: null,
  updated_at: '2026-01-01T00:00:00Z',
};

const pass = (palette: 'light' | 'dark', ratio: number): ContrastReport => ({ palette, text: '#000000', surface: '#ffffff', ratio, passes: ratio >= 4.5 });

describe('theme form', () => {
  it('reads a saved theme and writes the same tokens back', () => {
    const form = formFromTheme(saved);
    expect(form.colors).toEqual({ background: '', surface: '', text: '#111111', muted: '', border: '', accent: '#0a5dbd' });
    expect(form).toMatchObject({ fontBody: '', fontHeading: 'serif', measure: 'wide', scheme: 'auto', preset: 'svc', header: 'Acme', footer: '' });
    expect(tokensFromForm(form)).toEqual(saved.tokens);
    expect(draftFromForm(form)).toEqual({ tokens: saved.tokens, preset: 'svc', header: 'Acme', footer: null });
  });

  it('sends the dark palette’s own colours only when the page follows the reader’s system', () => {
    const form = emptyForm();
    form.colors.text = '#1a1a1a';
    form.darkColors.text = 'f0f0f0';
    form.darkColors.muted = 'nope';
    expect(tokensFromForm(form)).toEqual({ colors: { text: '#1a1a1a' } });
    form.scheme = 'auto';
    expect(tokensFromForm(form)).toEqual({ colors: { text: '#1a1a1a' }, dark_colors: { text: '#f0f0f0' }, layout: { color_scheme: 'auto' } });
    // An unset dark colour falls back to the one set for every palette, else the preset's dark one.
    const palettes = { light: { text: '#000000', muted: '#555555' }, dark: { text: '#ffffff', muted: '#9da7b3' } } as unknown as Parameters<
      typeof darkBasePalette
    >[1];
    expect(darkBasePalette(form, palettes)).toMatchObject({ text: '#1a1a1a', muted: '#9da7b3' });
    const saved = formFromTheme({
      tokens: { colors: { text: '#1a1a1a' }, dark_colors: { text: '#f0f0f0' } },
      preset: null,
      logo_asset_id: null,
      logo_url: null,
      header: null,
      footer: null,
      updated_at: null,
    });
    expect(saved.darkColors.text).toBe('#f0f0f0');
    expect(resetTokens(form).darkColors.text).toBe('');
  });

  it('leaves unset groups out and turns empty text into null', () => {
    expect(tokensFromForm(emptyForm())).toEqual({});
    expect(draftFromForm(emptyForm())).toEqual({ tokens: {}, preset: null, header: null, footer: null });
  });

  it('normalizes hex colours and leaves out what is not one', () => {
    expect(normalizeHex(' ABC ')).toBe('#abc');
    expect(normalizeHex('#11223344')).toBe('#11223344');
    expect(normalizeHex('red')).toBeNull();
    expect(normalizeHex('#12')).toBeNull();
    const form = emptyForm();
    form.colors.text = 'FFF';
    form.colors.surface = 'nope';
    expect(tokensFromForm(form)).toEqual({ colors: { text: '#fff' } });
    expect(colorProblem('nope')).toMatch(/hex/);
    expect(colorProblem('')).toBeNull();
    expect(colorProblem('#123456')).toBeNull();
  });

  it('gives the colour input a six-digit value', () => {
    expect(swatchValue('#abc', '#ffffff')).toBe('#aabbcc');
    expect(swatchValue('#11223344', '#ffffff')).toBe('#112233');
    expect(swatchValue('', '#1f2328')).toBe('#1f2328');
    expect(swatchValue('junk', '#1f2328')).toBe('#1f2328');
  });

  it('resets tokens but keeps header, footer and the logo choice', () => {
    const form = { ...formFromTheme(saved), clearLogo: true };
    expect(resetTokens(form)).toEqual({ ...emptyForm(), header: 'Acme', clearLogo: true });
  });

  it('clears or replaces the logo on save', () => {
    const form = { ...emptyForm(), clearLogo: true };
    expect(draftFromForm(form).clear_logo).toBe(true);
    expect(themeInputFromForm(form, null).clear_logo).toBe(true);
    const withLogo = themeInputFromForm(form, { content_type: 'image/png', data_base64: 'AAAA' });
    expect(withLogo.logo).toEqual({ content_type: 'image/png', data_base64: 'AAAA' });
    expect(withLogo).not.toHaveProperty('clear_logo');
  });

  it('checks logo files', () => {
    expect(logoProblem({ type: 'image/png', size: 1000 })).toBeNull();
    expect(logoProblem({ type: 'image/webp', size: 256 * 1024 })).toBeNull();
    expect(logoProblem({ type: 'image/svg+xml', size: 1000 })).toMatch(/PNG/);
    expect(logoProblem({ type: 'image/png', size: 256 * 1024 + 1 })).toMatch(/257 KiB/);
    expect(base64OfDataUrl('data:image/png;base64,iVBORw0=')).toBe('iVBORw0=');
  });

  it('rounds ratios down like the node', () => {
    expect(formatRatio(4.499)).toBe('4.49');
    expect(formatRatio(15.8)).toBe('15.80');
    expect(formatRatio(21)).toBe('21.00');
  });

  it('words the contrast check', () => {
    const table = contrastTable([pass('light', 15.8), pass('dark', 3.2)]);
    expect(table.palettes).toEqual(['light', 'dark']);
    expect(table.rows.map((r) => [r.label, r.cells.map((c) => c.text)])).toEqual([['Text', ['15.80:1 ✓', '3.20:1 ✗']]]);
    expect(table.rows[0]!.cells[1]).toMatchObject({ ok: false, hint: expect.stringMatching(/WCAG AA needs at least 4.5:1/) });
    expect(contrastTable([{ palette: 'light', text: '#0008', surface: '#fff', ratio: null, passes: false }]).rows[0]!.cells[0]).toMatchObject({
      text: 'transparent',
      ok: false,
    });
    expect(contrastBlock([pass('light', 15.8), pass('dark', 12)])).toBeNull();
    expect(contrastBlock([pass('light', 15.8), pass('dark', 3.2)])).toBe(
      'Can’t save yet: the contrast of text in the dark palette (3.20:1) is below WCAG AA (4.5:1), too faint to read comfortably. Change those colours or the surface.',
    );
    expect(contrastBlock([pass('light', 4.49), pass('dark', 3.2)])).toMatch(
      /text in the light palette \(4\.49:1\) and text in the dark palette \(3\.20:1\) is below/,
    );
    // Following the reader's system, it says why one colour cannot do and where the dark one goes.
    expect(contrastBlock([pass('light', 15.8), pass('dark', 3.2)], 'auto')).toMatch(
      /dark palette \(3\.20:1\).*a colour set for both palettes must pass on the light and the dark surface: give the dark palette its own under “Dark palette”\.$/,
    );
    expect(contrastBlock([pass('light', 3.2), pass('dark', 15.8)], 'auto')).not.toMatch(/Dark palette/);
    const clear = { palette: 'dark' as const, text: '#0008', surface: '#fff', ratio: null, passes: false };
    expect(contrastBlock([clear])).toMatch(/text in the dark palette must be opaque/);
    const both = contrastBlock([pass('light', 3), clear]);
    expect(both).toMatch(/text in the light palette \(3\.00:1\) is below WCAG AA/);
    expect(both).toMatch(/; and text in the dark palette must be opaque/);
    expect(contrastBlock([])).toBeNull();
  });

  it('shows and blocks on every text colour the page paints, not only text', () => {
    const check = (role: 'text' | 'muted' | 'link' | 'code', ratio: number) => ({
      role,
      label: role,
      foreground: '#8a1c7c',
      on: role === 'code' ? 'code block background' : 'surface',
      background: '#161b22',
      ratio,
      passes: ratio >= 4.5,
    });
    const dark = { ...pass('dark', 15.8), checks: [check('text', 15.8), check('muted', 7), check('link', 2.1), check('code', 15)] };
    const table = contrastTable([dark]);
    expect(table.rows.map((r) => [r.label, r.cells[0]!.text])).toEqual([
      ['Text', '15.80:1 ✓'],
      ['Muted text', '7.00:1 ✓'],
      ['Links', '2.10:1 ✗'],
      ['Code blocks', '15.00:1 ✓'],
    ]);
    expect(table.rows[2]!.cells[0]!.hint).toBe('Links: #8a1c7c on surface #161b22 (dark palette). WCAG AA needs at least 4.5:1.');
    // Text on surface passes, and still Save stays off: the links are too faint.
    expect(contrastBlock([dark])).toMatch(/^Can’t save yet: the contrast of links in the dark palette \(2\.10:1\) is below WCAG AA/);
  });

  it('previews the open document, else a sample with every block', () => {
    expect(sampleBody('# Mine')).toBe('# Mine');
    expect(sampleBody('  \n')).toBe(SAMPLE_BODY);
    for (const block of [/^# /m, /\[a link\]\(/, /^- /m, /^\| /m, /^> /m, /^```/m]) expect(SAMPLE_BODY).toMatch(block);
  });
});
