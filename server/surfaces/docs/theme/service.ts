/**
 * The team's document theme (docs/adr/0006-library-and-document-surfaces.md): sanitised tokens
 * (colours, fonts, layout), a preset, a logo stored as an image asset, header and footer. PUT
 * replaces tokens, preset, header and footer wholesale; the logo stays unless `clear_logo` or a new
 * logo is sent. Text on surface must reach WCAG AA (4.5:1) in every palette the colour scheme can
 * show.
 */
import type { BasePalettes, Theme, ThemeDraft, ThemeInput } from '../../../../contract/docs/theme.ts';
import type { NodeContext } from '../../../context.ts';
import { isoNow } from '../../../clock.ts';
import { docsTopic } from '../../../events/bus.ts';
import { invalid } from '../../../errors.ts';
import type { Assets } from '../assets/service.ts';
import { checkImage, decodeImageBase64 } from '../assets/service.ts';
import { palettesOf, presetOf, type Preset } from '../domain/colors.ts';
import { formatRatio } from '../domain/contrast.ts';
import { contrastReport, sanitizeTokens, type PaletteContrast, type ThemeTokens } from '../domain/theme-tokens.ts';
import type { PresentTheme } from '../present/page/page.ts';
import { findTheme, saveTheme, toTheme } from './store.ts';
import type { DocsUrls } from '../urls.ts';

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
        problems.push(
          `Theme ${label} and ${on} colours must be opaque (${palette} palette: ${label} ${foreground} on ${on} ${background}); transparent or alpha colours cannot be checked for contrast`,
        );
      } else if (!passes) {
        problems.push(
          `Theme ${label} ${foreground} on ${on} ${background} has a contrast ratio of ${formatRatio(ratio)}:1 (${palette} palette); WCAG AA needs at least 4.5:1`,
        );
      }
    }
  }
  if (problems.length > 0) throw invalid('SVC_ERR_THEME_CONTRAST_INSUFFICIENT', problems.join('; '));
}

export class Themes {
  readonly #ctx: NodeContext;
  readonly #assets: Assets;
  readonly #urls: DocsUrls;

  constructor(ctx: NodeContext, assets: Assets, urls: DocsUrls) {
    this.#ctx = ctx;
    this.#assets = assets;
    this.#urls = urls;
  }

  /** GET /v1/theme. */
  get(teamId: string): Theme {
    return toTheme(findTheme(this.#ctx.db, teamId), this.#urls.asset);
  }

  /** The team's theme for a present page (logo_url a same-origin path), or null when the team never set one. */
  themeFor(teamId: string): PresentTheme | null {
    const row = findTheme(this.#ctx.db, teamId);
    if (!row) return null;
    // Same-origin path: present pages are served on both listeners (their CSP allows img-src 'self').
    const { tokens, preset, header, footer, logo_url } = toTheme(row, (assetId) => `/assets/${assetId}`);
    return { tokens, preset, header, footer, logo_url };
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
      throw invalid('SVC_ERR_VALIDATION', [
        { loc: ['body', 'tokens', 'preset'], msg: 'Name the preset with the top-level "preset" field, not inside tokens', type: 'value_error' },
      ]);
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
      const previous = findTheme(db, teamId);
      let logoAssetId = input.clear_logo === true ? null : (previous?.logo_asset_id ?? null);
      if (logo) logoAssetId = this.#assets.insertImage(teamId, logo.type, logo.bytes);
      saveTheme(db, {
        team_id: teamId,
        tokens,
        preset,
        logo_asset_id: logoAssetId,
        header: input.header ?? null,
        footer: input.footer ?? null,
        updated_at: isoNow(this.#ctx.clock),
      });
    }).immediate();
    // The owner's feed says `docs_changed`, so open previews in the app repaint with the new theme.
    this.#ctx.bus.publish(docsTopic(teamId));
    return this.get(teamId);
  }
}
