/**
 * Windowing for long lists of fixed-height rows: only the rows in view (plus a margin) are in the
 * DOM, so a few thousand messages scroll as smoothly as ten. Pure; tested in window.test.ts.
 */

export interface WindowRange {
  /** First rendered index. */
  start: number;
  /** One past the last rendered index. */
  end: number;
  /** Space above the first rendered row, in px. */
  before: number;
  /** Space below the last rendered row, in px. */
  after: number;
}

export function visibleRange(options: { scrollTop: number; viewportHeight: number; rowHeight: number; count: number; overscan?: number }): WindowRange {
  const { rowHeight, count } = options;
  const overscan = options.overscan ?? 6;
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0, before: 0, after: 0 };
  const shown = Math.ceil(Math.max(0, options.viewportHeight) / rowHeight) + 1;
  // A scroll position past the end (the list just got shorter) still shows the last screenful.
  const first = Math.min(Math.floor(Math.max(0, options.scrollTop) / rowHeight), Math.max(0, count - shown + 1));
  const start = Math.max(0, Math.min(count - 1, first - overscan));
  const end = Math.min(count, first + shown + overscan);
  return { start, end, before: start * rowHeight, after: (count - end) * rowHeight };
}

/**
 * The scrollTop that brings row `index` fully into view with the least movement, or null when
 * it already is.
 */
export function revealScrollTop(index: number, scrollTop: number, viewportHeight: number, rowHeight: number): number | null {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return Math.max(0, bottom - viewportHeight);
  return null;
}
