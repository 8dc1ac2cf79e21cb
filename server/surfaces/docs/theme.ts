/**
 * The team's document theme (research B6): sanitised tokens (colours, fonts, layout), a preset,
 * a logo stored as an image asset, header and footer. PUT replaces tokens, preset, header and
 * footer wholesale; the logo stays unless `clear_logo` or a new logo is sent. Text on surface
 * must reach WCAG AA (4.5:1) in every palette the colour scheme can show.
 */
import type { NodeContext } from '../../context.ts';
import { isoNow } from '../../clock.ts';
import { invalid } from '../../errors.ts';
import type { Assets } from './assets.ts';
import { checkImage, decodeImageBase64 } from './assets.ts';
import { COLOR_KEYS, palettesOf, parseColor, presetOf, type ColorKey, type Palette, type Preset } from './domain/colors.ts';
import { AA_RATIO, contrastRatio, formatRatio } from './domain/contrast.ts';

export const FONT_STACKS = {
  system: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  serif: 'Georgia, Cambria, "Times New Roman", Times, serif',
  mono: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
} as const;
export type FontName = keyof typeof FONT_STACKS;

const LAYOUT = {
  mode: ['document', 'presentation'],
  measure: ['narrow', 'default', 'wide'],
  color_scheme: ['light', 'dark', 'auto'],
} as const;

export interface ThemeTokens {
  colors?: Partial<Record<ColorKey, string>>;
  fonts?: { body?: FontName; heading?: FontName };
  layout?: { mode?: 'document' | 'presentation'; measure?: 'narrow' | 'default' | 'wide'; color_scheme?: 'light' | 'dark' | 'auto' };
}

export interface ThemeView {
  tokens: ThemeTokens;
  preset: Preset | null;
  logo_asset_id: string | null;
  logo_url: string | null;
  header: string | null;
  footer: string | null;
  updated_at: string | null;
}

/** What a present page needs to dress a document. */
export interface PresentTheme {
  tokens: ThemeTokens;
  preset: Preset | null;
  header: string | null;
  footer: string | null;
  logo_url: string | null;
}

export interface ThemeInput {
  tokens?: Record<string, unknown> | undefined;
  preset?: string | null | undefined;
  logo?: { content_type: string; data_base64: string } | undefined;
  clear_logo?: boolean | undefined;
  header?: string | null | undefined;
  footer?: string | null | undefined;
}

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
export function effectivePalettes(tokens: ThemeTokens, preset: Preset | null): { name: 'light' | 'dark'; palette: Palette }[] {
  const base = palettesOf(preset);
  const scheme = tokens.layout?.color_scheme ?? 'light';
  const names: ('light' | 'dark')[] = scheme === 'auto' ? ['light', 'dark'] : [scheme];
  return names.map((name) => ({ name, palette: { ...base[name], ...tokens.colors } }));
}

/** 422 unless text on surface reaches AA in every palette; alpha-bearing colours fail closed. */
export function checkContrast(tokens: ThemeTokens, preset: Preset | null): void {
  for (const { name, palette } of effectivePalettes(tokens, preset)) {
    const text = parseColor(palette.text)!;
    const surface = parseColor(palette.surface)!;
    if (text.a < 1 || surface.a < 1) {
      throw invalid(`Theme text and surface colours must be opaque (${name} palette: text ${palette.text} on surface ${palette.surface}); transparent or alpha colours cannot be checked for contrast`);
    }
    const ratio = contrastRatio(text, surface);
    if (ratio < AA_RATIO) {
      throw invalid(
        `Theme text ${palette.text} on surface ${palette.surface} has a contrast ratio of ${formatRatio(ratio)}:1 (${name} palette); WCAG AA needs at least 4.5:1`,
      );
    }
  }
}

interface ThemeRow {
  tokens: string;
  logo_asset_id: string | null;
  header: string | null;
  footer: string | null;
  updated_at: string;
}

export class Themes {
  readonly #ctx: NodeContext;
  readonly #assets: Assets;

  constructor(ctx: NodeContext, assets: Assets) {
    this.#ctx = ctx;
    this.#assets = assets;
  }

  #row(teamId: string): ThemeRow | undefined {
    return this.#ctx.db.prepare(`SELECT tokens, logo_asset_id, header, footer, updated_at FROM docs_themes WHERE team_id = ?`).get(teamId) as
      | ThemeRow
      | undefined;
  }

  #view(row: ThemeRow | undefined): ThemeView {
    if (!row) return { tokens: {}, preset: null, logo_asset_id: null, logo_url: null, header: null, footer: null, updated_at: null };
    const { preset, ...tokens } = JSON.parse(row.tokens) as ThemeTokens & { preset?: Preset | null };
    return {
      tokens,
      preset: preset ?? null,
      logo_asset_id: row.logo_asset_id,
      logo_url: row.logo_asset_id === null ? null : this.#assets.urlOf(row.logo_asset_id),
      header: row.header,
      footer: row.footer,
      updated_at: row.updated_at,
    };
  }

  /** GET /v1/theme. */
  get(teamId: string): ThemeView {
    return this.#view(this.#row(teamId));
  }

  /** The team's theme for a present page (logo_url a same-origin path), or null when the team never set one. */
  themeFor(teamId: string): PresentTheme | null {
    const row = this.#row(teamId);
    if (!row) return null;
    const { tokens, preset, header, footer, logo_asset_id } = this.#view(row);
    // Same-origin path: present pages are served on both listeners (their CSP allows img-src 'self').
    return { tokens, preset, header, footer, logo_url: logo_asset_id === null ? null : `/assets/${logo_asset_id}` };
  }

  /** PUT /v1/theme: everything is checked before anything is written. */
  put(teamId: string, input: ThemeInput): ThemeView {
    if (input.tokens !== undefined && Object.hasOwn(input.tokens, 'preset')) {
      throw invalid([{ loc: ['body', 'tokens', 'preset'], msg: 'Name the preset with the top-level "preset" field, not inside tokens', type: 'value_error' }]);
    }
    const tokens = sanitizeTokens(input.tokens ?? {});
    const preset = presetOf(input.preset);
    checkContrast(tokens, preset);
    let logo: { type: ReturnType<typeof checkImage>; bytes: Buffer } | null = null;
    if (input.logo !== undefined) {
      const bytes = decodeImageBase64(input.logo.data_base64, 'logo.data_base64');
      logo = { type: checkImage(input.logo.content_type, bytes, 'logo'), bytes };
    }
    const db = this.#ctx.db;
    db.transaction(() => {
      const previous = this.#row(teamId);
      let logoAssetId = input.clear_logo === true ? null : (previous?.logo_asset_id ?? null);
      if (logo) logoAssetId = this.#assets.insertImage(teamId, logo.type, logo.bytes);
      db.prepare(
        `INSERT INTO docs_themes (team_id, tokens, logo_asset_id, header, footer, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (team_id) DO UPDATE SET tokens = excluded.tokens, logo_asset_id = excluded.logo_asset_id,
           header = excluded.header, footer = excluded.footer, updated_at = excluded.updated_at`,
      ).run(teamId, JSON.stringify({ ...tokens, preset }), logoAssetId, input.header ?? null, input.footer ?? null, isoNow(this.#ctx.clock));
    }).immediate();
    return this.get(teamId);
  }
}
