/**
 * What a present page shows for a document it does not render as Markdown: the source as plain
 * text under a short notice. Building it is one linear escape, so it costs nothing a reader could
 * abuse, and the reader still gets the whole document.
 */
import { escapeHtml } from './escape.ts';

export type PlainReason = 'too_large' | 'too_complex';

const NOTICE: Record<PlainReason, string> = {
  too_large: 'This document is too large to present formatted, so it is shown as plain text.',
  too_complex: 'This document is too complex to present formatted, so it is shown as plain text.',
};

/** A safe HTML fragment: the notice and the escaped source. */
export function plainTextFragment(markdown: string, reason: PlainReason): string {
  return `<p class="svc-notice"><em>${NOTICE[reason]}</em></p><pre class="svc-plain">${escapeHtml(markdown)}</pre>`;
}
