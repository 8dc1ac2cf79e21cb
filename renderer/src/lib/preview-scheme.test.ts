import { describe, expect, it } from 'vitest';
import { inScheme, pageSchemes, schemeNote } from './preview-scheme.ts';

const page = (style: string, body: string) => `<!doctype html><html><head><style>${style}</style></head><body>${body}</body></html>`;
const AUTO = ':root{color-scheme:light dark;--text:#111}@media (prefers-color-scheme:dark){:root{--text:#eee}}';

describe('the preview in the app’s look', () => {
  it('reads the palettes a page paints from its contrast report', () => {
    expect(pageSchemes([{ palette: 'light' }])).toEqual(['light']);
    expect(pageSchemes([{ palette: 'dark' }, { palette: 'light' }])).toEqual(['light', 'dark']);
    expect(pageSchemes([])).toEqual([]);
  });

  it('points the dark rule of a two-palette page at the app’s look, leaving the document’s text alone', () => {
    const text = '<p>@media (prefers-color-scheme:dark) in a code sample</p>';
    const html = page(AUTO, text);
    expect(inScheme(html, ['light', 'dark'], 'dark')).toBe(page(AUTO.replace('@media (prefers-color-scheme:dark)', '@media all'), text));
    expect(inScheme(html, ['light', 'dark'], 'light')).toBe(page(AUTO.replace('@media (prefers-color-scheme:dark)', '@media not all'), text));
  });

  it('shows a one-palette page as it is, and says so', () => {
    const html = page(':root{color-scheme:light}', '<p>x</p>');
    expect(inScheme(html, ['light'], 'dark')).toBe(html);
    expect(schemeNote(['light'], 'dark')).toMatch(/own light theme, as every reader sees it/);
    expect(schemeNote(['light', 'dark'], 'dark')).toMatch(/In your dark look/);
  });
});
