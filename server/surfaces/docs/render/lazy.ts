/**
 * renderMarkdown behind a dynamic import: markdown-it and sanitize-html cost ~90 ms to import and
 * only present pages and previews need them, so they load at the first render instead of at every
 * start of the node.
 */
import { lazily } from '../../../lazy.ts';
import type * as MarkdownModule from './markdown.ts';
import type { RenderMarkdownOptions } from './markdown.ts';

const renderer = lazily<typeof MarkdownModule>(() => import('./markdown.ts'));

/** markdown.ts's renderMarkdown, once the renderer is loaded. */
export async function renderMarkdownLazily(markdown: string, options: RenderMarkdownOptions): Promise<string> {
  return (await renderer()).renderMarkdown(markdown, options);
}
