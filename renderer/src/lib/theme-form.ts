/**
 * The theme editor's form (components/documents/ThemeDialog.vue) as plain data: read from the
 * team's saved theme, turned back into `PUT /v1/theme` input and the preview's draft, and the
 * words for the contrast check. Pure (no DOM), unit tested in theme-form.test.ts.
 */
import { AA_RATIO, formatRatio, IMAGE_MAX_BYTES, IMAGE_TYPES, PRESETS, TEXT_ROLES, THEME_TEXT_MAX } from '../../../contract/docs/rules.ts';
import {
  COLOR_TOKENS,
  type ColorToken,
  type ContrastCheck,
  type FontName,
  type Palette,
  type PaletteContrast,
  type Preview,
  type TextRole,
  type Theme,
  type ThemeDraft,
  type ThemeInput,
  type ThemeTokens,
} from '../api/docs.ts';

/** The node's own rules (contract/docs/rules.ts), under the names the editor uses. */
export { AA_RATIO, formatRatio, PRESETS };
/** Header and footer: the node's limit. */
export const TEXT_MAX = THEME_TEXT_MAX;
/** Logos: the node's image limit and types. */
export const LOGO_MAX_BYTES = IMAGE_MAX_BYTES;
export const LOGO_TYPES = IMAGE_TYPES;

export type Measure = NonNullable<NonNullable<ThemeTokens['layout']>['measure']>;
export type ColorScheme = NonNullable<NonNullable<ThemeTokens['layout']>['color_scheme']>;

export const FONT_OPTIONS: readonly { value: FontName; label: string }[] = [
  { value: 'system', label: 'System sans-serif' },
  { value: 'serif', label: 'Serif' },
  { value: 'mono', label: 'Monospace' },
];
export const MEASURE_OPTIONS: readonly { value: Measure; label: string }[] = [
  { value: 'narrow', label: 'Narrow' },
  { value: 'default', label: 'Default' },
  { value: 'wide', label: 'Wide' },
];
export const SCHEME_OPTIONS: readonly { value: ColorScheme; label: string }[] = [
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
  { value: 'auto', label: 'Follow the reader’s system' },
];

export const COLOR_LABELS: Readonly<Record<ColorToken, string>> = {
  background: 'Background',
  surface: 'Surface',
  text: 'Text',
  muted: 'Muted text',
  border: 'Border',
  accent: 'Accent',
};

/** The editor's fields; '' means unset (the node's default). */
export interface ThemeForm {
  /** Every palette's colours. */
  colors: Record<ColorToken, string>;
  /** With "Follow the reader's system": the dark palette's own, over `colors` ('' falls back to them). */
  darkColors: Record<ColorToken, string>;
  fontBody: FontName | '';
  fontHeading: FontName | '';
  measure: Measure | '';
  scheme: ColorScheme | '';
  preset: string;
  header: string;
  footer: string;
  /** Remove the saved logo on save (and in the preview). */
  clearLogo: boolean;
}

function emptyColors(): Record<ColorToken, string> {
  return Object.fromEntries(COLOR_TOKENS.map((name) => [name, ''])) as Record<ColorToken, string>;
}

/** A form with nothing set: the node's defaults throughout. */
export function emptyForm(): ThemeForm {
  return {
    colors: emptyColors(),
    darkColors: emptyColors(),
    fontBody: '',
    fontHeading: '',
    measure: '',
    scheme: '',
    preset: '',
    header: '',
    footer: '',
    clearLogo: false,
  };
}

/** The form for a saved theme. */
export function formFromTheme(theme: Theme): ThemeForm {
  const colors = emptyColors();
  const darkColors = emptyColors();
  for (const name of COLOR_TOKENS) {
    colors[name] = theme.tokens.colors?.[name] ?? '';
    darkColors[name] = theme.tokens.dark_colors?.[name] ?? '';
  }
  return {
    colors,
    darkColors,
    fontBody: theme.tokens.fonts?.body ?? '',
    fontHeading: theme.tokens.fonts?.heading ?? '',
    measure: theme.tokens.layout?.measure ?? '',
    scheme: theme.tokens.layout?.color_scheme ?? '',
    preset: theme.preset ?? '',
    header: theme.header ?? '',
    footer: theme.footer ?? '',
    clearLogo: false,
  };
}

/** "Reset to default": every token (and the preset) cleared; header, footer and logo are kept. */
export function resetTokens(form: ThemeForm): ThemeForm {
  return { ...emptyForm(), header: form.header, footer: form.footer, clearLogo: form.clearLogo };
}

const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** A hex colour as typed (`#rgb`, `#rrggbb` or `#rrggbbaa`, the # optional), lower-cased with its #; null when it is not one. */
export function normalizeHex(value: string): string | null {
  const text = value.trim();
  const withHash = text.startsWith('#') ? text : `#${text}`;
  return HEX.test(withHash) ? withHash.toLowerCase() : null;
}

/** Why a colour field can't be saved, or null (empty is fine: unset). */
export function colorProblem(value: string): string | null {
  if (value.trim() === '' || normalizeHex(value) !== null) return null;
  return 'Use a hex colour such as #1f2328, or clear the field for the default.';
}

/**
 * What an `<input type="color">` can show for a field: `#rrggbb` (it has no alpha and no short
 * form). `fallback` (the base palette's colour) when the field is unset or not a colour.
 */
export function swatchValue(value: string, fallback: string): string {
  const hex = normalizeHex(value) ?? normalizeHex(fallback);
  if (hex === null) return '#000000';
  const digits = hex.slice(1);
  if (digits.length === 3) return `#${[...digits].map((d) => d + d).join('')}`;
  return `#${digits.slice(0, 6)}`;
}

/** The base palette unset colours fall back to (the node's, from its preview), for the swatches: dark only when the scheme is dark. */
export function basePalette(form: Pick<ThemeForm, 'scheme'>, palettes: Preview['base_palettes'] | null): Readonly<Partial<Palette>> {
  if (palettes === null) return {};
  return form.scheme === 'dark' ? palettes.dark : palettes.light;
}

/** The colours set, as hex; those that are not hex are left out (the node would drop them). */
function setColors(fields: Record<ColorToken, string>): NonNullable<ThemeTokens['colors']> {
  const colors: NonNullable<ThemeTokens['colors']> = {};
  for (const name of COLOR_TOKENS) {
    const hex = normalizeHex(fields[name]);
    if (fields[name].trim() !== '' && hex !== null) colors[name] = hex;
  }
  return colors;
}

/**
 * What an unset dark-palette colour falls back to: the colour set for every palette, else the
 * preset's dark one.
 */
export function darkBasePalette(form: Pick<ThemeForm, 'colors'>, palettes: Preview['base_palettes'] | null): Readonly<Partial<Palette>> {
  return { ...(palettes?.dark ?? {}), ...setColors(form.colors) };
}

/** The form's tokens: only what is set; the dark palette's own colours only when the page follows the reader's system. */
export function tokensFromForm(form: ThemeForm): ThemeTokens {
  const tokens: ThemeTokens = {};
  const colors = setColors(form.colors);
  if (Object.keys(colors).length > 0) tokens.colors = colors;
  const darkColors = form.scheme === 'auto' ? setColors(form.darkColors) : {};
  if (Object.keys(darkColors).length > 0) tokens.dark_colors = darkColors;
  const fonts: NonNullable<ThemeTokens['fonts']> = {};
  if (form.fontBody !== '') fonts.body = form.fontBody;
  if (form.fontHeading !== '') fonts.heading = form.fontHeading;
  if (Object.keys(fonts).length > 0) tokens.fonts = fonts;
  const layout: NonNullable<ThemeTokens['layout']> = {};
  if (form.measure !== '') layout.measure = form.measure;
  if (form.scheme !== '') layout.color_scheme = form.scheme;
  if (Object.keys(layout).length > 0) tokens.layout = layout;
  return tokens;
}

/** The preview's draft: PUT's fields without a new logo (the preview shows the saved one unless cleared). */
export function draftFromForm(form: ThemeForm): ThemeDraft {
  return {
    tokens: tokensFromForm(form),
    preset: form.preset === '' ? null : form.preset,
    header: form.header === '' ? null : form.header,
    footer: form.footer === '' ? null : form.footer,
    ...(form.clearLogo ? { clear_logo: true } : {}),
  };
}

export interface LogoUpload {
  content_type: string;
  data_base64: string;
}

/** `PUT /v1/theme`'s body: the draft, and the new logo when one was chosen (it replaces the old one). */
export function themeInputFromForm(form: ThemeForm, logo: LogoUpload | null): ThemeInput {
  const draft = draftFromForm(form);
  if (logo === null) return draft;
  const { clear_logo: _clear, ...rest } = draft;
  return { ...rest, logo };
}

/** Why this file can't be a logo, or null. */
export function logoProblem(file: { type: string; size: number }): string | null {
  if (!(LOGO_TYPES as readonly string[]).includes(file.type)) return 'Choose a PNG, JPEG, GIF or WebP image.';
  if (file.size > LOGO_MAX_BYTES) return `The logo is ${Math.ceil(file.size / 1024)} KiB; at most 256 KiB fits.`;
  if (file.size === 0) return 'That file is empty.';
  return null;
}

/** The base64 part of a `data:` URL (as FileReader.readAsDataURL gives it). */
export function base64OfDataUrl(dataUrl: string): string {
  const comma = dataUrl.indexOf(',');
  return comma === -1 ? '' : dataUrl.slice(comma + 1);
}

/** The text colours a present page paints, each checked for contrast, as the editor names them. */
export const ROLE_LABELS: Readonly<Record<TextRole, string>> = { text: 'Text', muted: 'Muted text', link: 'Links', code: 'Code blocks' };
const ROLES: readonly TextRole[] = TEXT_ROLES;

/** A palette's contrast as a node reports it: a node from before per-colour checks sends no `checks` (text on surface only). */
export type ContrastReport = Omit<PaletteContrast, 'checks'> & Partial<Pick<PaletteContrast, 'checks'>>;

/** One text colour in one palette, in words: "15.80:1", ok, and what was measured. */
export interface ContrastCell {
  palette: PaletteContrast['palette'];
  role: TextRole;
  text: string;
  ok: boolean;
  /** Null when a colour has transparency (it can't be checked). */
  ratio: number | null;
  hint: string;
}

/** A palette's checks; a node from before per-colour checks reports text on surface only. */
function checksOf(contrast: ContrastReport): ContrastCheck[] {
  return (
    contrast.checks ?? [
      { role: 'text', label: 'text', foreground: contrast.text, on: 'surface', background: contrast.surface, ratio: contrast.ratio, passes: contrast.passes },
    ]
  );
}

function cellOf(palette: PaletteContrast['palette'], check: ContrastCheck): ContrastCell {
  const pair = `${ROLE_LABELS[check.role]}: ${check.foreground} on ${check.on} ${check.background} (${palette} palette).`;
  if (check.ratio === null)
    return { palette, role: check.role, text: 'transparent', ok: false, ratio: null, hint: `${pair} Use opaque colours so it can be checked.` };
  const ratio = `${formatRatio(check.ratio)}:1`;
  if (check.passes) return { palette, role: check.role, text: `${ratio} ✓`, ok: true, ratio: check.ratio, hint: `${pair} Meets WCAG AA.` };
  return { palette, role: check.role, text: `${ratio} ✗`, ok: false, ratio: check.ratio, hint: `${pair} WCAG AA needs at least ${AA_RATIO}:1.` };
}

/**
 * The contrast check as a table: a row per text colour the page paints, a column per palette the
 * scheme shows, each cell the node's measured ratio.
 */
export function contrastTable(contrast: readonly ContrastReport[]): {
  palettes: PaletteContrast['palette'][];
  rows: { role: TextRole; label: string; cells: ContrastCell[] }[];
} {
  const cells = contrast.flatMap((c) => checksOf(c).map((check) => cellOf(c.palette, check)));
  const rows = ROLES.map((role) => ({ role, label: ROLE_LABELS[role], cells: cells.filter((cell) => cell.role === role) })).filter(
    (row) => row.cells.length > 0,
  );
  return { palettes: contrast.map((c) => c.palette), rows };
}

/** "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * Why Save is off because of contrast, naming each colour and palette; null when every one passes.
 * When the page follows the reader's system and the dark palette fails, it says why one colour
 * cannot do (the same colour paints both palettes) and where the dark palette gets its own.
 */
export function contrastBlock(contrast: readonly ContrastReport[], scheme: ThemeForm['scheme'] = ''): string | null {
  const cells = contrast.flatMap((c) => checksOf(c).map((check) => cellOf(c.palette, check)));
  const where = (cell: ContrastCell) => `${ROLE_LABELS[cell.role].toLowerCase()} in the ${cell.palette} palette`;
  const low = cells.filter((c) => !c.ok && c.ratio !== null);
  const unknown = cells.filter((c) => !c.ok && c.ratio === null);
  const reasons: string[] = [];
  if (low.length > 0) {
    const items = low.map((c) => `${where(c)} (${formatRatio(c.ratio!)}:1)`);
    reasons.push(`the contrast of ${listed(items)} is below WCAG AA (${AA_RATIO}:1), too faint to read comfortably`);
  }
  if (unknown.length > 0) reasons.push(`${listed(unknown.map(where))} must be opaque so the contrast can be checked`);
  if (reasons.length === 0) return null;
  const darkFails = scheme === 'auto' && [...low, ...unknown].some((cell) => cell.palette === 'dark');
  const why = darkFails
    ? ' Following the reader’s system, a colour set for both palettes must pass on the light and the dark surface: give the dark palette its own under “Dark palette”.'
    : '';
  return `Can’t save yet: ${reasons.join('; and ')}. Change those colours or the surface.${why}`;
}

/** What the preview shows when no document with text is open: one of each block a theme styles. */
export const SAMPLE_BODY = `# Quarterly update

A short paragraph of body text, with **bold**, *italic* and \`inline code\`, and [a link](https://example.com) in the accent colour.

## What changed

- Faster previews
- A calmer palette
- Fewer surprises

| Metric | Before | After |
| --- | --- | --- |
| Load time | 1.8 s | 0.9 s |
| Errors | 12 | 3 |

> A quotation set apart from the text around it.

\`\`\`
const greeting = 'hello';
console.log(greeting);
\`\`\`
`;

/** The preview's body: the open document's text, else the sample. */
export function sampleBody(text: string): string {
  return text.trim() === '' ? SAMPLE_BODY : text;
}
