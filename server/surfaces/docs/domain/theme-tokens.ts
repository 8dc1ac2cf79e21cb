/**
 * Theme tokens as one pure module: what a token may be, the palettes a theme shows
 * (the preset's base palettes with custom colours on top, light and/or dark by `color_scheme`) and
 * their contrast. The theme service stores and checks tokens with it, and present pages paint
 * exactly the palettes it returns, so what the contrast check passed is what a reader sees.
 */
import { LAYOUT, TEXT_ROLES, type FontName, type PaletteName, type TextRole } from '../../../../contract/docs/rules.ts';
import type { ContrastCheck, PaletteContrast, ThemeTokens } from '../../../../contract/docs/theme.ts';
import { COLOR_KEYS, palettesOf, parseColor, type ColorKey, type Palette, type Preset, type Rgba } from './colors.ts';
import { AA_RATIO, contrastRatio } from './contrast.ts';

// What a token may be, and the contrast report's shape, are the contract's (the UI's editor uses them too).
export { LAYOUT, TEXT_ROLES, type ContrastCheck, type FontName, type PaletteContrast, type PaletteName, type TextRole, type ThemeTokens };

export const FONT_STACKS: Readonly<Record<FontName, string>> = {
  system: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  serif: 'Georgia, Cambria, "Times New Roman", Times, serif',
  mono: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
};

export const MEASURES: Readonly<Record<(typeof LAYOUT.measure)[number], string>> = { narrow: '58ch', default: '68ch', wide: '82ch' };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A colour group's valid entries, trimmed; null when none is. */
function sanitizeColors(raw: unknown): Partial<Record<ColorKey, string>> | null {
  if (!isRecord(raw)) return null;
  const colors: Partial<Record<ColorKey, string>> = {};
  for (const key of COLOR_KEYS) {
    const value = raw[key];
    if (parseColor(value) !== null) colors[key] = (value as string).trim();
  }
  return Object.keys(colors).length > 0 ? colors : null;
}

/** Keeps the valid token entries and silently drops the rest (and groups left empty). */
export function sanitizeTokens(raw: Record<string, unknown>): ThemeTokens {
  const tokens: ThemeTokens = {};
  const colors = sanitizeColors(raw.colors);
  if (colors !== null) tokens.colors = colors;
  const darkColors = sanitizeColors(raw.dark_colors);
  if (darkColors !== null) tokens.dark_colors = darkColors;
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

/**
 * The palettes a page can show: the preset's base palettes with the custom colours on top, and,
 * when the page follows the reader's system (`auto`), the dark palette's own colours on top of
 * those in the dark one.
 */
export function effectivePalettes(tokens: ThemeTokens, preset: Preset | null): { name: PaletteName; palette: Palette }[] {
  const base = palettesOf(preset);
  const scheme = tokens.layout?.color_scheme ?? 'light';
  const names: PaletteName[] = scheme === 'auto' ? ['light', 'dark'] : [scheme];
  const own = (name: PaletteName) => (scheme === 'auto' && name === 'dark' ? tokens.dark_colors : undefined);
  return names.map((name) => ({ name, palette: { ...base[name], ...tokens.colors, ...own(name) } }));
}

/** What a code block lays over the surface; page.ts paints exactly this. */
export const CODE_TINT = { r: 0, g: 0, b: 0, a: 0.04 } as const;

/**
 * The text colours a present page paints (TEXT_ROLES), each on what it is painted on (page.ts):
 * body text, muted text (quotes, header, footer, status lines) and links (the accent) on the
 * surface, and body text on a code block, whose background is the surface under CODE_TINT. An
 * editable link's primary button is the surface colour on the accent, the same pair as links.
 */
const ROLE_PAIRS: Readonly<Record<TextRole, { foreground: ColorKey; label: string; on: string }>> = {
  text: { foreground: 'text', label: 'text', on: 'surface' },
  muted: { foreground: 'muted', label: 'muted text', on: 'surface' },
  link: { foreground: 'accent', label: 'link colour (accent)', on: 'surface' },
  code: { foreground: 'text', label: 'text', on: 'code block background' },
};

const hex2 = (n: number): string => Math.round(n).toString(16).padStart(2, '0');

/** `top` laid over an opaque `bottom`, as the browser composites it. */
function over(top: Rgba, bottom: Rgba): Rgba {
  const mix = (a: number, b: number) => a * top.a + b * (1 - top.a);
  return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a: 1 };
}

function check(role: TextRole, palette: Palette): ContrastCheck {
  const pair = ROLE_PAIRS[role];
  const foreground = parseColor(palette[pair.foreground])!;
  const surface = parseColor(palette.surface)!;
  const opaque = foreground.a === 1 && surface.a === 1;
  const ground = role === 'code' && opaque ? over(CODE_TINT, surface) : surface;
  const background = role === 'code' && opaque ? `#${hex2(ground.r)}${hex2(ground.g)}${hex2(ground.b)}` : palette.surface;
  const ratio = opaque ? contrastRatio(foreground, ground) : null;
  return { role, label: pair.label, foreground: palette[pair.foreground], on: pair.on, background, ratio, passes: ratio !== null && ratio >= AA_RATIO };
}

/** The contrast of every text colour in every palette the theme can show, against WCAG AA. */
export function contrastReport(tokens: ThemeTokens, preset: Preset | null): PaletteContrast[] {
  return effectivePalettes(tokens, preset).map(({ name, palette }) => {
    const checks = TEXT_ROLES.map((role) => check(role, palette));
    const text = checks[0]!;
    return { palette: name, text: palette.text, surface: palette.surface, ratio: text.ratio, passes: text.passes, checks };
  });
}
