// Markdown → safe HTML fragment for the document surface's present pages (and, later, the UI's live
// preview). One implementation, pure: no I/O, no HTTP, no DOM.
//
// Libraries, and why:
// - markdown-it (CommonMark + GFM tables/strikethrough, maintained, plain JS, no DOM) renders with
//   `html: false` (raw HTML in the source is escaped and shown as text), `linkify: false` and
//   `typographer: false`. A link whose URL is not http(s)/mailto/#fragment is rendered as its text,
//   and an image that is not one of the team's assets as its alt text.
// - sanitize-html, an allow-list sanitiser built on htmlparser2, runs on the server without a DOM
//   (DOMPurify would need a jsdom window in production, and server/ is kept DOM-free by lint). It is
//   the second, independent line of defence over markdown-it's output: allowed tags and attributes
//   only, no style, no event handlers, schemes checked again, `class` cut to `svc-*` tokens, `rel`
//   forced on links, and images kept only for the team's known assets.
//
// Images: `![alt](/assets/<uuid>)` is kept only when the uuid is one of `assetIds`, and its src is
// rewritten through `assetUrl`; every other image is replaced by its alt text as plain text.
import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

export interface RenderMarkdownOptions {
  /** Ids (uuids) of the team's assets that the document may show as images. */
  assetIds: ReadonlySet<string>;
  /** Public URL of an asset, e.g. `/assets/<id>`. */
  assetUrl: (id: string) => string;
}

export const ALLOWED_TAGS: readonly string[] = [
  'a',
  'blockquote',
  'br',
  'code',
  'del',
  'div',
  'em',
  'figcaption',
  'figure',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'img',
  'li',
  'ol',
  'p',
  'pre',
  's',
  'strong',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
];

const ASSET_PATH = /^\/assets\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const LINK_SCHEME = /^(?:https?|mailto):/i;
// A tag name no allow-list contains: sanitize-html drops the tag and keeps its text.
const DROP = 'svc-dropped';

type RenderEnv = {
  assetIds: ReadonlySet<string>;
  assetUrl: (id: string) => string;
};

/** The asset id behind `/assets/<uuid>`, when the team owns that asset. */
function knownAssetId(src: string, assetIds: ReadonlySet<string>): string | undefined {
  const match = ASSET_PATH.exec(src);
  const id = match?.[1];
  if (id === undefined) return undefined;
  if (assetIds.has(id)) return id;
  const lower = id.toLowerCase();
  return assetIds.has(lower) ? lower : undefined;
}

/** http(s) and mailto URLs that parse, and same-document fragments. */
function isAllowedHref(href: string): boolean {
  if (href.startsWith('#')) return !/[\s\p{Cc}]/u.test(href);
  if (!LINK_SCHEME.test(href)) return false;
  try {
    const url = new URL(href);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:';
  } catch {
    return false;
  }
}

const md = new MarkdownIt('default', {
  html: false,
  linkify: false,
  typographer: false,
  breaks: false,
  xhtmlOut: false,
  // Fenced code's language becomes a class; only `svc-*` classes survive the sanitiser.
  langPrefix: 'svc-language-',
});

// markdown-it's own link check would leave a rejected link or image as literal markdown. Instead every
// destination parses, and the core rule below turns a link whose href is not http(s)/mailto/#fragment
// (javascript:, vbscript:, data:, file:, relative paths…) into its plain text, while the image rule
// turns any image that is not a known asset into its alt text. The sanitiser checks both again.
md.validateLink = (): boolean => true;

md.core.ruler.push('svc_unsafe_links', (state) => {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const dropped: boolean[] = [];
    for (const token of block.children) {
      if (token.type === 'link_open') {
        const drop = !isAllowedHref(String(token.attrGet('href') ?? '').trim());
        dropped.push(drop);
        if (drop) neutralise(token);
      } else if (token.type === 'link_close') {
        if (dropped.pop()) neutralise(token);
      }
    }
  }
});

/** Turn a link_open/link_close token into empty text, keeping the link's content as the only output. */
function neutralise(token: Token): void {
  token.type = 'text';
  token.tag = '';
  token.attrs = null;
  token.content = '';
  token.nesting = 0;
}

md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  if (!token) return '';
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  const ctx = env as RenderEnv | undefined;
  const id = ctx ? knownAssetId(String(token.attrGet('src') ?? ''), ctx.assetIds) : undefined;
  if (ctx === undefined || id === undefined) return md.utils.escapeHtml(alt);
  const title = String(token.attrGet('title') ?? '');
  const titleAttr = title ? ` title="${md.utils.escapeHtml(title)}"` : '';
  return `<img src="${md.utils.escapeHtml(ctx.assetUrl(id))}" alt="${md.utils.escapeHtml(alt)}"${titleAttr}>`;
};

// Table alignment arrives as `style="text-align:…"`; styles are never allowed, so it becomes a class.
const ALIGN_STYLE = /^text-align:(left|right|center)$/;

function sanitize(html: string, env: RenderEnv): string {
  const imageSrcs = new Set<string>();
  for (const id of env.assetIds) imageSrcs.add(env.assetUrl(id));

  const alignCell = (tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag => {
    const align = ALIGN_STYLE.exec((attribs.style ?? '').replace(/\s+/g, ''));
    return { tagName, attribs: align ? { class: `svc-align-${align[1]}` } : {} };
  };

  return sanitizeHtml(html, {
    allowedTags: [...ALLOWED_TAGS],
    allowedAttributes: {
      a: ['href', 'title', 'rel'],
      img: ['src', 'alt', 'title'],
      '*': ['class'],
    },
    allowedClasses: { '*': ['svc-*'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https'] },
    allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
    allowProtocolRelative: false,
    allowedStyles: {},
    parseStyleAttributes: false,
    allowVulnerableTags: false,
    disallowedTagsMode: 'discard',
    nonTextTags: [
      'script',
      'style',
      'textarea',
      'option',
      'noscript',
      'iframe',
      'object',
      'embed',
      'svg',
      'math',
      'template',
      'xmp',
      'noembed',
      'noframes',
      'plaintext',
    ],
    transformTags: {
      a: (tagName, attribs) => {
        const href = (attribs.href ?? '').trim();
        if (!isAllowedHref(href)) return { tagName: DROP, attribs: {} };
        const kept: sanitizeHtml.Attributes = { href, rel: 'noopener noreferrer' };
        if (attribs.title) kept.title = attribs.title;
        if (attribs.class) kept.class = attribs.class;
        return { tagName, attribs: kept };
      },
      img: (tagName, attribs) => {
        const src = attribs.src ?? '';
        if (!imageSrcs.has(src)) return { tagName: DROP, attribs: {}, text: attribs.alt ?? '' };
        return { tagName, attribs };
      },
      td: alignCell,
      th: alignCell,
    },
  });
}

/** Render untrusted markdown to an HTML fragment that is safe to place in a present page. */
export function renderMarkdown(markdown: string, options: RenderMarkdownOptions): string {
  const env: RenderEnv = { assetIds: options.assetIds, assetUrl: options.assetUrl };
  return sanitize(md.render(markdown, env), env);
}

/**
 * The sanitiser alone, for HTML that did not come from `renderMarkdown` (and so that its allow-list
 * can be tested against raw hostile HTML, which markdown-it with `html: false` never emits).
 */
export function sanitizeFragment(html: string, options: RenderMarkdownOptions): string {
  return sanitize(html, { assetIds: options.assetIds, assetUrl: options.assetUrl });
}
