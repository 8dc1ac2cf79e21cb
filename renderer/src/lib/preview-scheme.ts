/**
 * The document preview and the app's light or dark look. A present page paints the palettes its
 * team's theme names (the preview's contrast report lists them): one (light, the default, or
 * dark), which every reader sees, or both, the dark one under `prefers-color-scheme: dark`. A
 * frame's media query follows the system, not the app's Appearance setting, so a page with both
 * palettes is shown in the app's look by pointing that one rule of the page's head at `all` or
 * `not all` (as composables/useTheme.ts does for the app's own sheet); the document's text is never
 * touched. A page of one palette is shown as it is, and the pane says so. Pure; tested beside it.
 */

export type Scheme = 'light' | 'dark';

const DARK_RULE = '@media (prefers-color-scheme:dark)';

/** The schemes a page paints, from its preview's contrast report (one entry per palette). */
export function pageSchemes(contrast: readonly { palette: Scheme }[]): Scheme[] {
  return (['light', 'dark'] as const).filter((scheme) => contrast.some((entry) => entry.palette === scheme));
}

/** The page's HTML in `scheme` when it paints both; as it is otherwise. Only the head's first style sheet is changed. */
export function inScheme(html: string, schemes: readonly Scheme[], scheme: Scheme): string {
  if (schemes.length < 2) return html;
  const end = html.indexOf('</style>');
  if (end < 0) return html;
  const head = html.slice(0, end).replace(DARK_RULE, scheme === 'dark' ? '@media all' : '@media not all');
  return head + html.slice(end);
}

/** What the preview pane says about the look it shows. */
export function schemeNote(schemes: readonly Scheme[], app: Scheme): string {
  if (schemes.length >= 2) return `In your ${app} look · readers get their system’s`;
  return `The page’s own ${schemes[0] ?? 'light'} theme, as every reader sees it`;
}
