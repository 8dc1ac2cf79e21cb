// Proves that nothing executable reaches a present page: every output is parsed by jsdom (a real HTML
// parser, the way a browser would read it) and inspected element by element.
import { describe, expect, it } from 'vitest';
import { renderMarkdown, sanitizeFragment } from './markdown.ts';

// jsdom is loaded through a non-literal specifier with the few DOM shapes used here typed locally:
// @types/jsdom pulls the whole DOM lib into the Node program, which server/ must not see.
interface DomAttr {
  name: string;
  value: string;
}
interface DomElement {
  localName: string;
  namespaceURI: string | null;
  className: string;
  textContent: string | null;
  firstChild: { textContent: string | null } | null;
  attributes: ArrayLike<DomAttr>;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}
interface DomDocument {
  body: DomElement;
  createTreeWalker(root: DomElement, whatToShow: number): { nextNode(): unknown };
}
interface JsdomModule {
  JSDOM: new (html: string) => { window: { document: DomDocument } };
}
const JSDOM_MODULE: string = 'jsdom';
const { JSDOM } = (await import(JSDOM_MODULE)) as JsdomModule;

const ASSET = '123e4567-e89b-42d3-a456-426614174000';
const OTHER_TEAM_ASSET = '00000000-0000-4000-8000-000000000000';
const options = { assetIds: new Set([ASSET]), assetUrl: (id: string) => `/assets/${id}` };
const ASSET_URLS = new Set([`/assets/${ASSET}`]);

const FORBIDDEN_ELEMENTS = [
  'script',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'style',
  'form',
  'input',
  'button',
  'link',
  'meta',
  'base',
  'frame',
  'frameset',
  'template',
  'textarea',
  'video',
  'audio',
  'source',
];
const ALLOWED_ELEMENTS = new Set([
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
]);

function parse(html: string): DomDocument {
  return new JSDOM(`<!doctype html><body>${html}</body>`).window.document;
}

function isSafeHref(href: string): boolean {
  if (href.startsWith('#')) return true;
  try {
    const url = new URL(href);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol);
  } catch {
    return false;
  }
}

/** Every property a present page relies on; fails with the offending HTML in the message. */
function assertInert(html: string): DomDocument {
  const doc = parse(html);
  for (const tag of FORBIDDEN_ELEMENTS) {
    expect(doc.body.querySelectorAll(tag).length, `<${tag}> in ${html}`).toBe(0);
  }
  for (const el of Array.from(doc.body.querySelectorAll('*'))) {
    expect(ALLOWED_ELEMENTS.has(el.localName), `<${el.localName}> in ${html}`).toBe(true);
    expect(el.namespaceURI, `foreign element in ${html}`).toBe('http://www.w3.org/1999/xhtml');
    for (const attr of Array.from(el.attributes)) {
      expect(attr.name.toLowerCase().startsWith('on'), `${attr.name} in ${html}`).toBe(false);
      expect(attr.name.toLowerCase(), `style in ${html}`).not.toBe('style');
      expect(['href', 'src', 'alt', 'title', 'rel', 'class'], `${attr.name} in ${html}`).toContain(attr.name);
      if (attr.name === 'class') {
        for (const token of attr.value.split(/\s+/).filter(Boolean)) expect(token).toMatch(/^svc-/);
      }
    }
    if (el.localName === 'a') {
      const href = el.getAttribute('href');
      expect(href, `anchor without href in ${html}`).not.toBeNull();
      expect(isSafeHref(href ?? ''), `href ${href} in ${html}`).toBe(true);
      expect(el.getAttribute('rel')).toBe('noopener noreferrer');
    }
    if (el.localName === 'img') {
      expect(ASSET_URLS.has(el.getAttribute('src') ?? ''), `img src in ${html}`).toBe(true);
    }
  }
  // Nothing unexpected hides in comments or processing instructions either.
  const walker = doc.createTreeWalker(doc.body, 128 /* NodeFilter.SHOW_COMMENT */);
  expect(walker.nextNode(), `comment in ${html}`).toBeNull();
  return doc;
}

const HOSTILE_MARKDOWN: readonly string[] = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<img src=x onerror=alert(1)>',
  '<img src="/assets/' + ASSET + '" onerror="alert(1)">',
  '[x](javascript:alert(1))',
  '[x](JAVASCRIPT:alert(1))',
  '[x](JaVaScRiPt:alert(1))',
  '[x](&#106;avascript:alert(1))',
  '[x](&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1))',
  '[x](javascript&colon;alert(1))',
  '[x](<java script:alert(1)>)',
  '[x](java\tscript:alert(1))',
  '[x](%6A%61%76%61%73%63%72%69%70%74:alert(1))',
  '[x](  javascript:alert(1)  )',
  '[x](<  javascript:alert(1)>)',
  '[x](vbscript:msgbox(1))',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[x](file:///etc/passwd)',
  '[x](//evil.example/)',
  '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '![x](data:image/png;base64,iVBORw0KGgo=)',
  '![x](javascript:alert(1))',
  '![x](https://evil.example/track.png)',
  `![x](/assets/${OTHER_TEAM_ASSET})`,
  `![x](/assets/${ASSET}/../../etc)`,
  `![x](https://evil.example/assets/${ASSET})`,
  '![x" onerror="alert(1)](/assets/' + ASSET + ')',
  '[x][evil]\n\n[evil]: javascript:alert(1)',
  '[x][evil]\n\n[evil]: <JaVaScRiPt:alert(1)>',
  '![x][evil]\n\n[evil]: data:image/png;base64,AAAA',
  '<javascript:alert(1)>',
  '<JAVASCRIPT:alert(1)>',
  '<vbscript:msgbox(1)>',
  '<data:text/html,<script>alert(1)</script>>',
  '<svg onload=alert(1)><script>alert(1)</script></svg>',
  '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<iframe src="https://evil.example"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<style>body{background:url(javascript:alert(1))}</style>',
  '<a href="  javascript:alert(1)">x</a>',
  '<a href="javascript&#58;alert(1)">x</a>',
  '<form action="https://evil.example"><input name=x></form>',
  '<!-- <script>alert(1)</script> -->',
  '<!--><script>alert(1)</script>-->',
  '<div style="background:url(javascript:alert(1))" onclick="alert(1)">x</div>',
  '<p class="svc-ok evil">x</p>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  '<details open ontoggle=alert(1)>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '```\n</code></pre><script>alert(1)</script>\n```',
  '```js" onmouseover="alert(1)\ncode\n```',
  '`<script>alert(1)</script>`',
  '| a |\n|---|\n| <script>alert(1)</script> |',
  '> <img src=x onerror=alert(1)>',
  '- [x](javascript:alert(1))\n- <svg onload=alert(1)>',
  '[<img src=x onerror=alert(1)>](https://example.com)',
  '[x](https://example.com "title\\" onmouseover=\\"alert(1)")',
  '[x](https://example.com" onmouseover="alert(1))',
  '*[x](javascript:alert(1))*',
  '[[x](javascript:alert(1))](https://example.com)',
  '\u0000<script>alert(1)</script>',
  '[x](\u0001javascript:alert(1))',
];

describe('renderMarkdown: hostile markdown never reaches a present page as anything executable', () => {
  it.each(HOSTILE_MARKDOWN.map((input) => [input]))('%j', (input) => {
    const html = renderMarkdown(input, options);
    assertInert(html);
    expect(html.toLowerCase()).not.toMatch(/<\s*(script|iframe|object|embed|svg|math|style|form)\b/);
    // Text may mention `href="javascript:` (escaped, inert); a real tag may not carry it.
    expect(html.toLowerCase()).not.toMatch(/<[a-z][^>]*\b(href|src)="\s*(javascript|vbscript|data):/);
  });
});

describe('sanitizeFragment: the second line of defence holds on its own against raw HTML', () => {
  it.each(HOSTILE_MARKDOWN.map((input) => [input]))('%j', (input) => {
    assertInert(sanitizeFragment(input, options));
  });

  it('drops scripts with their content and keeps harmless text', () => {
    const doc = assertInert(sanitizeFragment('<p>hi<script>alert(1)</script></p><svg><title>t</title></svg>', options));
    expect(doc.body.textContent).not.toContain('alert');
    expect(doc.body.querySelector('p')?.textContent).toBe('hi');
  });

  it('keeps only svc-* classes and strips style and handlers', () => {
    const doc = assertInert(sanitizeFragment('<p class="svc-a evil svc-b" style="color:red" onclick="x()">x</p>', options));
    expect(doc.body.querySelector('p')?.className).toBe('svc-a svc-b');
  });

  it('replaces a foreign image by its alt text and keeps a known asset image', () => {
    const doc = assertInert(sanitizeFragment(`<p><img src="https://evil.example/x.png" alt="foreign"><img src="/assets/${ASSET}" alt="ours"></p>`, options));
    expect(doc.body.querySelectorAll('img')).toHaveLength(1);
    expect(doc.body.textContent).toContain('foreign');
  });

  it('unwraps relative and unsafe links but forces rel on safe ones', () => {
    const doc = assertInert(sanitizeFragment('<a href="/x">rel</a><a href="https://e.example" rel="opener" target="_blank">ok</a>', options));
    const links = doc.body.querySelectorAll('a');
    expect(links).toHaveLength(1);
    expect(links[0]?.getAttribute('rel')).toBe('noopener noreferrer');
    expect(links[0]?.hasAttribute('target')).toBe(false);
    expect(doc.body.textContent).toBe('relok');
  });
});

describe('renderMarkdown: raw HTML is shown as text, not interpreted', () => {
  it('escapes inline and block HTML', () => {
    const input = '<b>bold?</b>\n\n<div onclick="x()">block</div>\n\n<script>alert(1)</script>';
    const doc = assertInert(renderMarkdown(input, options));
    expect(doc.body.querySelector('b')).toBeNull();
    expect(doc.body.textContent).toContain('<b>bold?</b>');
    expect(doc.body.textContent).toContain('<div onclick="x()">block</div>');
    expect(doc.body.textContent).toContain('<script>alert(1)</script>');
  });

  it('keeps an HTML comment as visible text', () => {
    const doc = assertInert(renderMarkdown('before <!-- hidden --> after', options));
    expect(doc.body.textContent).toContain('<!-- hidden -->');
  });

  it('shows a rejected link as its text and a rejected autolink as plain text', () => {
    const doc = assertInert(renderMarkdown('[click](javascript:alert(1)) and <javascript:alert(1)>', options));
    expect(doc.body.querySelectorAll('a')).toHaveLength(0);
    expect(doc.body.textContent).toContain('click');
  });
});

describe('renderMarkdown: ordinary markdown', () => {
  it('renders headings, emphasis, strikethrough and paragraphs', () => {
    const doc = assertInert(renderMarkdown('# Title\n\n## Sub\n\nSome *em* and **strong** and ~~gone~~ text.\n\n---\n\n> quoted', options));
    expect(doc.body.querySelector('h1')?.textContent).toBe('Title');
    expect(doc.body.querySelector('h2')?.textContent).toBe('Sub');
    expect(doc.body.querySelector('p em')?.textContent).toBe('em');
    expect(doc.body.querySelector('p strong')?.textContent).toBe('strong');
    expect(doc.body.querySelector('p s')?.textContent).toBe('gone');
    expect(doc.body.querySelector('hr')).not.toBeNull();
    expect(doc.body.querySelector('blockquote p')?.textContent).toBe('quoted');
  });

  it('renders ordered and unordered lists', () => {
    const doc = assertInert(renderMarkdown('- one\n- two\n\n1. first\n2. second\n   - nested', options));
    expect(Array.from(doc.body.querySelectorAll('ul > li')).map((li) => li.firstChild?.textContent)).toEqual(['one', 'two', 'nested']);
    expect(doc.body.querySelectorAll('ol > li')).toHaveLength(2);
    expect(doc.body.querySelector('ol li ul li')?.textContent).toBe('nested');
  });

  it('renders tables with alignment as svc-* classes, not styles', () => {
    const doc = assertInert(renderMarkdown('| Name | Qty |\n|:-----|----:|\n| a | 1 |\n| b | 2 |', options));
    expect(Array.from(doc.body.querySelectorAll('thead th')).map((th) => th.textContent)).toEqual(['Name', 'Qty']);
    expect(doc.body.querySelectorAll('tbody tr')).toHaveLength(2);
    expect(doc.body.querySelector('th')?.className).toBe('svc-align-left');
    expect(doc.body.querySelector('td:last-child')?.className).toBe('svc-align-right');
  });

  it('renders code blocks with < and & inside as text', () => {
    const doc = assertInert(renderMarkdown('```ts\nif (a < b && c > d) { x = "<b>"; }\n```\n\nInline `a < b`.', options));
    const code = doc.body.querySelector('pre > code');
    expect(code?.textContent).toBe('if (a < b && c > d) { x = "<b>"; }\n');
    expect(code?.className).toBe('svc-language-ts');
    expect(code?.querySelector('*')).toBeNull();
    expect(doc.body.querySelector('p code')?.textContent).toBe('a < b');
  });

  it('renders links with rel, including mailto, fragments and autolinks', () => {
    const doc = assertInert(renderMarkdown('[site](https://example.com/a?b=1 "T") [mail](mailto:a@example.com) [top](#top) <https://example.org>', options));
    const links = Array.from(doc.body.querySelectorAll('a'));
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.com/a?b=1', 'mailto:a@example.com', '#top', 'https://example.org']);
    expect(links.every((a) => a.getAttribute('rel') === 'noopener noreferrer')).toBe(true);
    expect(links[0]?.getAttribute('title')).toBe('T');
  });

  it('keeps a known asset image, rewritten through assetUrl', () => {
    const abs = { assetIds: new Set([ASSET]), assetUrl: (id: string) => `https://node.example/assets/${id}` };
    const html = renderMarkdown(`![A *cat*](/assets/${ASSET} "Cat")`, abs);
    const img = parse(html).body.querySelector('img');
    expect(img?.getAttribute('src')).toBe(`https://node.example/assets/${ASSET}`);
    expect(img?.getAttribute('alt')).toBe('A cat');
    expect(img?.getAttribute('title')).toBe('Cat');
  });

  it('accepts an upper-case uuid for a known asset', () => {
    const doc = assertInert(renderMarkdown(`![x](/assets/${ASSET.toUpperCase()})`, options));
    expect(doc.body.querySelector('img')?.getAttribute('src')).toBe(`/assets/${ASSET}`);
  });

  it('replaces every other image by its alt text', () => {
    const input = `![foreign](https://evil.example/x.png) ![other team](/assets/${OTHER_TEAM_ASSET}) ![data](data:image/png;base64,AAAA) ![rel](/x.png)`;
    const doc = assertInert(renderMarkdown(input, options));
    expect(doc.body.querySelectorAll('img')).toHaveLength(0);
    expect(doc.body.textContent?.trim()).toBe('foreign other team data rel');
  });

  it('returns an empty fragment for empty input', () => {
    expect(renderMarkdown('', options)).toBe('');
  });
});
