/**
 * Read links' pages, built once and served from memory (a 2 MB document was once rendered again
 * on every GET of its read link, 9.3 s each). A read link is pinned to a version, so its
 * page depends only on that version's body, the team's theme and the team's images (which images
 * the sanitiser keeps); the cache key names all of them, so a page is never stale and a theme
 * change or a new image simply makes a new page. A document the renderer refuses as too complex
 * gets its plain-text page, cached like any other, so a hostile version costs one render budget
 * in all, not one per view.
 */
import { sha256Hex } from '../../../crypto/encoding.ts';
import { ServiceError } from '../../../errors.ts';
import type { Listener } from '../../../http/listener.ts';
import type { Assets } from '../assets/service.ts';
import { PageCache } from './page/page-cache.ts';
import { readPage, type ThemeFor } from './page/page.ts';
import type { PresentLinks } from './service.ts';
import type { ResolvedLink } from './store.ts';
import { renderMarkdownLazily } from '../../../markdown/lazy.ts';
import { plainTextFragment } from '../../../markdown/plain.ts';

/** Memory for finished read pages; one page may take up to a quarter of it. */
export const PAGE_CACHE_BYTES = 64 * 1024 * 1024;

/** Pages built since the process started (tests read it to see that views do not rebuild). */
let built = 0;
export const presentPagesBuilt = (): number => built;

export class PresentPages {
  readonly #cache = new PageCache(PAGE_CACHE_BYTES);
  readonly #present: PresentLinks;
  readonly #assets: Assets;
  readonly #themeFor: ThemeFor;

  constructor(present: PresentLinks, assets: Assets, themeFor: ThemeFor) {
    this.#present = present;
    this.#assets = assets;
    this.#themeFor = themeFor;
  }

  /** The whole HTML page of a read link, as UTF-8 bytes, built (once) for a request on `listener`. */
  async readPage(link: ResolvedLink, listener: Listener): Promise<Buffer> {
    const theme = this.#themeFor(link.team_id);
    const assetIds = [...this.#assets.assetIdsOf(link.team_id)].sort();
    const key = `${link.document_id}:${link.version}:${sha256Hex(JSON.stringify([theme, assetIds, link.title]))}`;
    return this.#cache.get(key, async () => {
      const markdown = this.#present.pinnedBody(link);
      const html = await bodyHtml(markdown, new Set(assetIds), listener);
      built++;
      return Buffer.from(readPage(html, theme, link.title), 'utf8');
    });
  }
}

/** The rendered body, or its plain text when the renderer refuses it as too complex (422). */
async function bodyHtml(markdown: string, assetIds: Set<string>, listener: Listener): Promise<string> {
  try {
    return await renderMarkdownLazily(markdown, { assetIds, assetUrl: (id) => `/assets/${id}` }, listener);
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'SVC_ERR_DOCUMENT_TOO_COMPLEX') return plainTextFragment(markdown, 'too_complex');
    throw error;
  }
}
