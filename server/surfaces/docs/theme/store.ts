/**
 * The `docs_themes` table: one theme per team, its sanitised tokens as JSON with the preset under
 * `preset`, its logo (an image asset), header and footer. The only module that reads or writes it.
 */
import type { Theme } from '../../../../contract/docs/theme.ts';
import type { Db } from '../../../context.ts';
import type { Preset } from '../domain/colors.ts';
import type { ThemeTokens } from '../domain/theme-tokens.ts';

export interface ThemeRow {
  tokens: string;
  logo_asset_id: string | null;
  header: string | null;
  footer: string | null;
  updated_at: string;
}

/** A theme to store: tokens and preset go into the one `tokens` column. */
export interface NewThemeRow {
  team_id: string;
  tokens: ThemeTokens;
  preset: Preset | null;
  logo_asset_id: string | null;
  header: string | null;
  footer: string | null;
  updated_at: string;
}

/** The wire theme, its logo served at `logoUrl(asset_id)`; the empty theme when there is no row. */
export function toTheme(row: ThemeRow | undefined, logoUrl: (assetId: string) => string): Theme {
  if (!row) return { tokens: {}, preset: null, logo_asset_id: null, logo_url: null, header: null, footer: null, updated_at: null };
  const { preset, ...tokens } = JSON.parse(row.tokens) as ThemeTokens & { preset?: Preset | null };
  return {
    tokens,
    preset: preset ?? null,
    logo_asset_id: row.logo_asset_id,
    logo_url: row.logo_asset_id === null ? null : logoUrl(row.logo_asset_id),
    header: row.header,
    footer: row.footer,
    updated_at: row.updated_at,
  };
}

export function findTheme(db: Db, teamId: string): ThemeRow | undefined {
  return db.prepare(`SELECT tokens, logo_asset_id, header, footer, updated_at FROM docs_themes WHERE team_id = ?`).get(teamId) as ThemeRow | undefined;
}

/** Replaces the team's theme wholesale (or sets its first). */
export function saveTheme(db: Db, row: NewThemeRow): void {
  db.prepare(
    `INSERT INTO docs_themes (team_id, tokens, logo_asset_id, header, footer, updated_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (team_id) DO UPDATE SET tokens = excluded.tokens, logo_asset_id = excluded.logo_asset_id,
       header = excluded.header, footer = excluded.footer, updated_at = excluded.updated_at`,
  ).run(row.team_id, JSON.stringify({ ...row.tokens, preset: row.preset }), row.logo_asset_id, row.header, row.footer, row.updated_at);
}
