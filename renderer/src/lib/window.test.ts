import { describe, expect, it } from 'vitest';
import { revealScrollTop, visibleRange } from './window.ts';

describe('visibleRange', () => {
  it('renders the rows in view plus an overscan margin, with spacers for the rest', () => {
    expect(visibleRange({ scrollTop: 0, viewportHeight: 400, rowHeight: 80, count: 1000, overscan: 2 })).toEqual({
      start: 0,
      end: 8,
      before: 0,
      after: 992 * 80,
    });
    const middle = visibleRange({ scrollTop: 8000, viewportHeight: 400, rowHeight: 80, count: 1000, overscan: 2 });
    expect(middle).toEqual({ start: 98, end: 108, before: 98 * 80, after: 892 * 80 });
    // The spacers and the rendered rows always add up to the whole list.
    expect(middle.before + (middle.end - middle.start) * 80 + middle.after).toBe(1000 * 80);
  });

  it('clamps at the end and copes with short and empty lists', () => {
    expect(visibleRange({ scrollTop: 1e9, viewportHeight: 400, rowHeight: 80, count: 10, overscan: 2 })).toMatchObject({ start: 3, end: 10, after: 0 });
    expect(visibleRange({ scrollTop: 0, viewportHeight: 400, rowHeight: 80, count: 3 })).toEqual({ start: 0, end: 3, before: 0, after: 0 });
    expect(visibleRange({ scrollTop: 0, viewportHeight: 400, rowHeight: 80, count: 0 })).toEqual({ start: 0, end: 0, before: 0, after: 0 });
  });
});

describe('revealScrollTop', () => {
  it('scrolls the least needed to show a row, or not at all', () => {
    expect(revealScrollTop(2, 0, 400, 80)).toBeNull();
    expect(revealScrollTop(5, 0, 400, 80)).toBe(80); // row 5 ends at 480: scroll by one row
    expect(revealScrollTop(1, 200, 400, 80)).toBe(80);
  });
});
