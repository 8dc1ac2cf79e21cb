/**
 * The HTML of the public present pages (docs/adr/0006-library-and-document-surfaces.md): a full
 * document titled with the document's own title (upstream says "Presented document"; a reader's tab
 * and bookmarks should say what it is; whoever holds the link sees the title on the page anyway),
 * noindex, a `main.page > article.surface` card with the optional theme logo, header, sanitised
 * body and footer, a clean default look and a print stylesheet. Pure string builders: every value
 * is escaped here, and the body is already sanitised HTML from render/markdown.ts.
 */

import { escapeHtml } from '../../../../markdown/escape.ts';
import { COLOR_KEYS, SVC_PALETTES, type Palette, type Preset } from '../../domain/colors.ts';
import { CODE_TINT, effectivePalettes, FONT_STACKS, MEASURES, type ThemeTokens } from '../../domain/theme-tokens.ts';

// The contrast check measures text on exactly this tint (theme-tokens.ts).
const CODE_TINT_CSS = `rgba(${CODE_TINT.r},${CODE_TINT.g},${CODE_TINT.b},${CODE_TINT.a})`;

/** A team's presentation theme as a page paints it (the theme service's view of it). */
export interface PresentTheme {
  tokens: ThemeTokens;
  preset: Preset | null;
  header: string | null;
  footer: string | null;
  /** Same-origin `/assets/...` URL of the logo; anything else is ignored (CSP img-src 'self'). */
  logo_url: string | null;
}

export type ThemeFor = (teamId: string) => PresentTheme | null;

// Defence in depth: tokens were checked when stored, and only values that cannot break out of a CSS
// declaration reach the stylesheet: hex, rgb()/rgba() with numbers, or a colour word.
const SAFE_COLOR = /^(?:#[0-9a-fA-F]{3,8}|rgba?\(\s*[0-9.]+\s*(?:,\s*[0-9.]+\s*){2,3}\)|[a-zA-Z]{3,20})$/;
const SAFE_LOGO = /^\/assets\/[A-Za-z0-9-]{1,64}$/;

function paletteVars(palette: Palette): string {
  return COLOR_KEYS.filter((name) => SAFE_COLOR.test(palette[name]))
    .map((name) => `--${name}:${palette[name]};`)
    .join('');
}

/**
 * The palettes the contrast check passed, painted: one scheme as `:root`, or with `auto` the light
 * palette and the dark one under `prefers-color-scheme: dark`.
 */
function themeCss(theme: PresentTheme | null): string {
  const tokens = theme?.tokens ?? {};
  const [first, second] = effectivePalettes(tokens, theme?.preset ?? null);
  const body = FONT_STACKS[tokens.fonts?.body ?? 'system'];
  const heading = FONT_STACKS[tokens.fonts?.heading ?? tokens.fonts?.body ?? 'system'];
  const measure = MEASURES[tokens.layout?.measure ?? 'default'];
  const scheme = second ? 'light dark' : first!.name;
  const root = `:root{color-scheme:${scheme};${paletteVars(first!.palette)}--font-body:${body};--font-heading:${heading};--measure:${measure};}`;
  return second ? `${root}@media (prefers-color-scheme:dark){:root{${paletteVars(second.palette)}}}` : root;
}

const BASE_CSS = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--background);color:var(--text);font:17px/1.6 var(--font-body)}
main.page{padding:3rem 1rem}
article.surface{max-width:var(--measure);margin:0 auto;padding:2.5rem 3rem;background:var(--surface);border:1px solid var(--border);border-radius:10px}
.surface h1,.surface h2,.surface h3,.surface h4{font-family:var(--font-heading);line-height:1.25;margin:1.6em 0 .5em}
.surface>.doc>:first-child{margin-top:0}
.surface a{color:var(--accent)}
.surface img{max-width:100%;height:auto}
.surface pre{overflow:auto;padding:1rem;background:${CODE_TINT_CSS};border-radius:6px}
.surface code{font-family:${FONT_STACKS.mono};font-size:.9em}
.surface blockquote{margin:1em 0;padding-left:1em;border-left:3px solid var(--border);color:var(--muted)}
.surface table{border-collapse:collapse;width:100%}
.surface th,.surface td{border:1px solid var(--border);padding:.4em .6em;text-align:left}
.surface hr{border:0;border-top:1px solid var(--border)}
.logo{display:block;max-height:48px;margin-bottom:1.5rem}
.theme-header,.theme-footer{white-space:pre-wrap;color:var(--muted);font-size:.9em}
.theme-header{margin-bottom:1.5rem}
.theme-footer{margin-top:2rem;padding-top:1rem;border-top:1px solid var(--border)}
@media (max-width:640px){body{background:var(--surface)}main.page{padding:0}article.surface{border:0;border-radius:0;padding:1.5rem 1.25rem}}
@media print{
  body{background:#fff;color:#000;font-size:11pt}
  main.page{padding:0}
  article.surface{max-width:none;border:0;padding:0;box-shadow:none}
  .surface a{color:#000;text-decoration:underline}
  .surface pre,.surface blockquote,.surface table,.surface img{break-inside:avoid}
  .surface h1,.surface h2,.surface h3{break-after:avoid}
  .no-print{display:none!important}
}`;

/** The whole page around `inner` (already safe HTML), with the theme's logo, header and footer. */
export function presentDocument(options: {
  theme: PresentTheme | null;
  /** The document's title, for the tab (escaped here). */
  title: string;
  inner: string;
  extraCss?: string;
  script?: { nonce: string; source: string };
  /** Prefix of the logo's `/assets/...` path: the docs origin when the page is shown elsewhere. */
  assetOrigin?: string;
}): string {
  const { theme } = options;
  const logoSrc = typeof theme?.logo_url === 'string' && SAFE_LOGO.test(theme.logo_url) ? `${options.assetOrigin ?? ''}${theme.logo_url}` : null;
  const logo = logoSrc === null ? '' : `<img class="logo" src="${escapeHtml(logoSrc)}" alt="">`;
  const header = theme?.header ? `<div class="theme-header">${escapeHtml(theme.header)}</div>` : '';
  const footer = theme?.footer ? `<div class="theme-footer">${escapeHtml(theme.footer)}</div>` : '';
  const script = options.script ? `<script nonce="${escapeHtml(options.script.nonce)}">${options.script.source}</script>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow, noarchive">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(options.title)}</title>
<style>${themeCss(theme)}${BASE_CSS}${options.extraCss ?? ''}</style>
</head>
<body>
<main class="page"><article class="surface">${logo}${header}${options.inner}${footer}</article></main>
${script}</body>
</html>
`;
}

/** A read link's page: the pinned version's sanitised HTML, and no script at all. */
export function readPage(html: string, theme: PresentTheme | null, title: string, assetOrigin?: string): string {
  return presentDocument({ theme, title, inner: `<div class="doc">${html}</div>`, ...(assetOrigin === undefined ? {} : { assetOrigin }) });
}

/**
 * Unknown, expired and revoked links alike: a small page in the default look, light or dark by
 * the reader's system, with the same words for every token, so it tells a guesser nothing about
 * the team, the document or the link. No script, no images.
 */
export function notFoundPage(): string {
  const { light, dark } = SVC_PALETTES;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow, noarchive">
<meta name="referrer" content="no-referrer">
<title>Link not found</title>
<style>
:root{color-scheme:light dark;${paletteVars(light)}}
@media (prefers-color-scheme:dark){:root{${paletteVars(dark)}}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:1rem;background:var(--background);color:var(--text);font:17px/1.6 ${FONT_STACKS.system}}
main.not-found{max-width:28rem;padding:2rem 2.25rem;background:var(--surface);border:1px solid var(--border);border-radius:10px}
h1{margin:0 0 .5rem;font-size:1.35rem;line-height:1.3}
p{margin:0;color:var(--muted)}
</style>
</head>
<body>
<main class="not-found">
<h1>Not found</h1>
<p>This link doesn’t open a document. It may have expired or been revoked, or the address may be incomplete. Ask whoever shared it for a new one.</p>
</main>
</body>
</html>
`;
}
