import { describe, expect, it } from 'vitest';
import { findTheme, saveTheme, toTheme } from './store.ts';
import { useStoreDatabase } from '../../../../test/support/store-database.ts';

const db = useStoreDatabase();
const logoUrl = (id: string): string => `/assets/${id}`;

describe('the themes store', () => {
  it('shows the empty theme for a team that never set one', () => {
    expect(findTheme(db(), 'none:example.com')).toBeUndefined();
    expect(toTheme(undefined, logoUrl)).toEqual({
      tokens: {},
      preset: null,
      logo_asset_id: null,
      logo_url: null,
      header: null,
      footer: null,
      updated_at: null,
    });
  });

  it('keeps the preset inside the tokens column and splits it out again', () => {
    const team = 'saved:example.com';
    saveTheme(db(), {
      team_id: team,
      tokens: { colors: { accent: '#123456' } },
      preset: 'svc',
      logo_asset_id: null,
      header: 'Header',
      footer: null,
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    const row = findTheme(db(), team)!;
    expect(JSON.parse(row.tokens)).toEqual({ colors: { accent: '#123456' }, preset: 'svc' });
    expect(toTheme(row, logoUrl)).toEqual({
      tokens: { colors: { accent: '#123456' } },
      preset: 'svc',
      logo_asset_id: null,
      logo_url: null,
      header: 'Header',
      footer: null,
      updated_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('replaces a theme wholesale and serves its logo where the caller says', () => {
    const team = 'replaced:example.com';
    const first = { team_id: team, tokens: {}, preset: null, logo_asset_id: null, header: 'Old', footer: 'Old', updated_at: '2026-01-01T00:00:00.000Z' };
    saveTheme(db(), first);
    saveTheme(db(), { ...first, logo_asset_id: null, header: null, footer: 'New', updated_at: '2026-01-02T00:00:00.000Z' });
    expect(toTheme(findTheme(db(), team), logoUrl)).toMatchObject({ preset: null, header: null, footer: 'New', updated_at: '2026-01-02T00:00:00.000Z' });
    // A theme written before the preset was kept reads as no preset.
    const row = { ...findTheme(db(), team)!, tokens: '{}', logo_asset_id: 'logo-1' };
    expect(toTheme(row, logoUrl)).toMatchObject({ preset: null, logo_asset_id: 'logo-1', logo_url: '/assets/logo-1' });
  });
});
