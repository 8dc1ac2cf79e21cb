/**
 * The team's document theme (research B6): sanitised tokens (colours, fonts, layout), a preset,
 * a logo stored as an image asset, header and footer. PUT replaces tokens, preset, header and
 * footer wholesale; the logo stays unless `clear_logo` or a new logo is sent. Text on surface
 * must reach WCAG AA (4.5:1) in every palette the colour scheme can show.
 */
import type { BasePalettes, Theme, ThemeDraft, ThemeInput } from '../../../contract/docs/theme.ts';
import type { NodeContext } from '../../context.ts';
import { isoNow } from '../../clock.ts';
import { docsTopic } from '../../events/bus.ts';
import { invalid } from '../../errors.ts';
import type { Assets } from './assets.ts';
import { checkImage, decodeImageBase64 } from './assets.ts';
import { palettesOf, presetOf, type Preset } from './domain/colors.ts';
import { formatRatio } from './domain/contrast.ts';
import { contrastReport, sanitizeTokens, type PaletteContrast, type ThemeTokens } from './domain/theme-tokens.ts';
import type { PresentTheme } from './present-page/page.ts';

/** A theme as a page would paint it, its contrast, and the palettes unset colours fall back to. */
export interface ThemePreview {
  theme: PresentTheme | null;
  contrast: PaletteContrast[];
  base_palettes: BasePalettes;
}

/**
 * 422 unless every text colour the page paints reaches AA on its background in every palette
 * (theme-tokens.ts); alpha-bearing colours fail closed. The message names each failing colour,
 * its background, the ratio and the palette.
 */
export function checkContrast(tokens: ThemeTokens, preset: Preset | null): void {
  const problems: string[] = [];
  for (const { palette, checks } of contrastReport(tokens, preset)) {
    for (const { label, foreground, on, background, ratio, passes } of checks) {
      if (ratio === null) {
        problems.push(`Theme ${label} and ${on} colours must be opaque (${palette} palette: ${label} ${foreground} on ${on} ${background}); transparent or alpha colours cannot be checked for contrast`);
      } else if (!passes) {
        problems.push(`Theme ${label} ${foreground} on ${on} ${background} has a contrast ratio of ${formatRatio(ratio)}:1 (${palette} palette); WCAG AA needs at least 4.5:1`);
      }
    }
  }
  if (problems.length > 0) throw invalid(problems.join('; '));
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

  #view(row: ThemeRow | undefined): Theme {
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
  get(teamId: string): Theme {
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

  /**
   * A theme as a page would paint it without saving it: the draft's tokens (sanitised as PUT would),
   * preset, header and footer, with the saved logo unless `clear_logo`; and the contrast of every
   * palette it shows, which PUT would refuse below AA; and the preset's base palettes, which an
   * editor shows for the colours left unset. Without a draft, the saved theme.
   */
  preview(teamId: string, draft: ThemeDraft | undefined): ThemePreview {
    const saved = this.themeFor(teamId);
    if (draft === undefined) {
      const preset = saved?.preset ?? null;
      return { theme: saved, contrast: contrastReport(saved?.tokens ?? {}, preset), base_palettes: palettesOf(preset) };
    }
    const theme: PresentTheme = {
      tokens: sanitizeTokens(draft.tokens ?? {}),
      preset: presetOf(draft.preset),
      header: draft.header ?? null,
      footer: draft.footer ?? null,
      logo_url: draft.clear_logo === true ? null : (saved?.logo_url ?? null),
    };
    return { theme, contrast: contrastReport(theme.tokens, theme.preset), base_palettes: palettesOf(theme.preset) };
  }

  /** PUT /v1/theme: everything is checked before anything is written. */
  put(teamId: string, input: ThemeInput): Theme {
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
    // The owner's feed says `docs_changed`, so open previews in the app repaint with the new theme.
    this.#ctx.bus.publish(docsTopic(teamId));
    return this.get(teamId);
  }
}
