/**
 * Theme tokens (research B6) as one pure module: what a token may be, the palettes a theme shows
 * (the preset's base palettes with custom colours on top, light and/or dark by `color_scheme`) and
 * their contrast. The theme service stores and checks tokens with it, and present pages paint
 * exactly the palettes it returns, so what the contrast check passed is what a reader sees.
 */
import { COLOR_KEYS, palettesOf, parseColor, type ColorKey, type Palette, type Preset } from './colors.ts';
import { AA_RATIO, contrastRatio } from './contrast.ts';

export const FONT_STACKS = {
  system: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  serif: 'Georgia, Cambria, "Times New Roman", Times, serif',
  mono: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
} as const;
export type FontName = keyof typeof FONT_STACKS;

export const LAYOUT = {
  mode: ['document', 'presentation'],
  measure: ['narrow', 'default', 'wide'],
  color_scheme: ['light', 'dark', 'auto'],
} as const;

export const MEASURES: Readonly<Record<(typeof LAYOUT.measure)[number], string>> = { narrow: '58ch', default: '68ch', wide: '82ch' };

export interface ThemeTokens {
  colors?: Partial<Record<ColorKey, string>>;
  fonts?: { body?: FontName; heading?: FontName };
  layout?: { mode?: 'document' | 'presentation'; measure?: 'narrow' | 'default' | 'wide'; color_scheme?: 'light' | 'dark' | 'auto' };
}

export type PaletteName = 'light' | 'dark';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keeps the valid token entries and silently drops the rest (and groups left empty). */
export function sanitizeTokens(raw: Record<string, unknown>): ThemeTokens {
  const tokens: ThemeTokens = {};
  if (isRecord(raw.colors)) {
    const colors: Partial<Record<ColorKey, string>> = {};
    for (const key of COLOR_KEYS) {
      const value = raw.colors[key];
      if (parseColor(value) !== null) colors[key] = (value as string).trim();
    }
    if (Object.keys(colors).length > 0) tokens.colors = colors;
  }
  if (isRecord(raw.fonts)) {
    const fonts: NonNullable<ThemeTokens['fonts']> = {};
    for (const key of ['body', 'heading'] as const) {
      const value = raw.fonts[key];
      if (typeof value === 'string' && Object.hasOwn(FONT_STACKS, value)) fonts[key] = value as FontName;
    }
    if (Object.keys(fonts).length > 0) tokens.fonts = fonts;
  }
  if (isRecord(raw.layout)) {
    const layout: Record<string, string> = {};
    for (const key of Object.keys(LAYOUT) as (keyof typeof LAYOUT)[]) {
      const value = raw.layout[key];
      if (typeof value === 'string' && (LAYOUT[key] as readonly string[]).includes(value)) layout[key] = value;
    }
    if (Object.keys(layout).length > 0) tokens.layout = layout as ThemeTokens['layout'];
  }
  return tokens;
}

/** The palettes a page can show: the preset's base palettes with the custom colours on top. */
export function effectivePalettes(tokens: ThemeTokens, preset: Preset | null): { name: PaletteName; palette: Palette }[] {
  const base = palettesOf(preset);
  const scheme = tokens.layout?.color_scheme ?? 'light';
  const names: PaletteName[] = scheme === 'auto' ? ['light', 'dark'] : [scheme];
  return names.map((name) => ({ name, palette: { ...base[name], ...tokens.colors } }));
}

/** Text on surface in one palette; `ratio` is null when either colour has alpha (it cannot be checked). */
export interface PaletteContrast {
  palette: PaletteName;
  text: string;
  surface: string;
  ratio: number | null;
  passes: boolean;
}

/** Text-on-surface contrast of every palette the theme can show, against WCAG AA. */
export function contrastReport(tokens: ThemeTokens, preset: Preset | null): PaletteContrast[] {
  return effectivePalettes(tokens, preset).map(({ name, palette }) => {
    const text = parseColor(palette.text)!;
    const surface = parseColor(palette.surface)!;
    const ratio = text.a < 1 || surface.a < 1 ? null : contrastRatio(text, surface);
    return { palette: name, text: palette.text, surface: palette.surface, ratio, passes: ratio !== null && ratio >= AA_RATIO };
  });
}
