/**
 * The team's document theme (docs/adr/0006-library-and-document-surfaces.md):
 * `GET`/`PUT /v1/theme`, and the contrast report the editor's preview carries
 * (`POST /v1/present/preview`, present.ts).
 */
import { z } from 'zod';
import { COLOR_KEYS, FONT_NAMES, IMAGE_TYPES, LAYOUT, PALETTE_NAMES, PRESETS, TEXT_ROLES, THEME_TEXT_MAX } from './rules.ts';

/**
 * Tokens as stored and answered: only valid entries (the node drops the rest when it saves).
 * `colors` paint every palette the scheme shows; `dark_colors`, with the `auto` scheme only
 * ("follow the reader's system"), are the dark palette's own on top of them, so one text colour
 * need not pass on both a light and a dark surface. A theme saved before they existed reads the same.
 */
export const ThemeTokens = z.object({
  colors: z.partialRecord(z.enum(COLOR_KEYS), z.string()).optional(),
  dark_colors: z.partialRecord(z.enum(COLOR_KEYS), z.string()).optional(),
  fonts: z.object({ body: z.enum(FONT_NAMES).optional(), heading: z.enum(FONT_NAMES).optional() }).optional(),
  layout: z
    .object({ mode: z.enum(LAYOUT.mode).optional(), measure: z.enum(LAYOUT.measure).optional(), color_scheme: z.enum(LAYOUT.color_scheme).optional() })
    .optional(),
});
export type ThemeTokens = z.output<typeof ThemeTokens>;

/** `GET`/`PUT /v1/theme`: nothing set is `{tokens: {}}` and nulls. */
export const Theme = z.object({
  tokens: ThemeTokens,
  preset: z.enum(PRESETS).nullable(),
  logo_asset_id: z.string().nullable(),
  logo_url: z.string().nullable(),
  header: z.string().nullable(),
  footer: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type Theme = z.output<typeof Theme>;

/**
 * `PUT /v1/theme`: tokens, preset, header and footer are replaced; the logo stays unless changed.
 * Unknown top-level keys are ignored (upstream); token entries are sanitised by the node, so any
 * object is taken here (ThemeTokens is what a client means to send).
 */
export const ThemeBody = z.object({
  tokens: z.record(z.string(), z.unknown()).optional(),
  preset: z.string().max(64).nullable().optional(),
  logo: z.strictObject({ content_type: z.string().max(100).describe(IMAGE_TYPES.join(', ')), data_base64: z.string() }).optional(),
  clear_logo: z.boolean().optional(),
  header: z.string().max(THEME_TEXT_MAX).nullable().optional(),
  footer: z.string().max(THEME_TEXT_MAX).nullable().optional(),
});
export type ThemeInput = z.output<typeof ThemeBody>;

/** A theme being edited, as the preview takes it: PUT's fields without a new logo; unknown keys refused. */
export const ThemeDraft = z.strictObject(ThemeBody.omit({ logo: true }).shape);
export type ThemeDraft = z.output<typeof ThemeDraft>;

// ---------------------------------------------------------------------------------- contrast

export const Palette = z.record(z.enum(COLOR_KEYS), z.string());
export type Palette = z.output<typeof Palette>;

/** One text colour on its background in one palette; `ratio` is null when either has alpha (it cannot be checked). */
export const ContrastCheck = z.object({
  role: z.enum(TEXT_ROLES),
  /** In words, for messages: "muted text", "link colour (accent)". */
  label: z.string(),
  foreground: z.string(),
  /** What it is painted on, in words: "surface", "code block background". */
  on: z.string(),
  background: z.string(),
  ratio: z.number().nullable(),
  passes: z.boolean(),
});
export type ContrastCheck = z.output<typeof ContrastCheck>;

/**
 * One palette's contrast. `text`, `surface`, `ratio` and `passes` are text on surface (as first
 * published); `checks` holds every text colour the page paints, text on surface first.
 */
export const PaletteContrast = z.object({
  palette: z.enum(PALETTE_NAMES),
  text: z.string(),
  surface: z.string(),
  ratio: z.number().nullable(),
  passes: z.boolean(),
  checks: z.array(ContrastCheck),
});
export type PaletteContrast = z.output<typeof PaletteContrast>;

/** The palettes colours left unset fall back to. */
export const BasePalettes = z.object({ light: Palette, dark: Palette });
export type BasePalettes = z.output<typeof BasePalettes>;
