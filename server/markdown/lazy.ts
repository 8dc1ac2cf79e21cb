/**
 * The one way the node renders Markdown for a page: documents up to RENDER_MAX_BYTES go to the
 * render worker (pool.ts; spawned at the first render, so markdown-it and sanitize-html never
 * load at the node's start, nor on its main thread); larger ones are never rendered and come back
 * as plain text under a notice (plain.ts). Documents may be larger than that to store.
 */
import type { Listener } from '../http/listener.ts';
import type { RenderMarkdownOptions } from './markdown.ts';
import { plainTextFragment } from './plain.ts';
import { renderPool } from './pool.ts';

/** The most Markdown (UTF-8 bytes) a present page or preview renders. */
export const RENDER_MAX_BYTES = 512 * 1024;

/** Whether `markdown` is over the render cap (UTF-8 bytes; every UTF-16 unit is at most 3 of them). */
export function overRenderCap(markdown: string): boolean {
  return markdown.length * 3 > RENDER_MAX_BYTES && Buffer.byteLength(markdown, 'utf8') > RENDER_MAX_BYTES;
}

/**
 * Sanitised HTML for `markdown` (markdown.ts's renderMarkdown, in the worker), or the plain-text
 * fragment when it is over the cap, for a request that came in on `listener` (the loopback
 * listener's renders go first). Refusals: 422 too complex, 503 renderer busy.
 */
export async function renderMarkdownLazily(markdown: string, options: RenderMarkdownOptions, listener: Listener): Promise<string> {
  if (overRenderCap(markdown)) return plainTextFragment(markdown, 'too_large');
  const assets = [...options.assetIds].map((id): [string, string] => [id, options.assetUrl(id)]);
  return renderPool.render(markdown, assets, listener);
}
