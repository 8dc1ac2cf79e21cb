import { describe, expect, it } from 'vitest';
import { highlightSegments, normalizeRanges } from './highlight.ts';

const marked = (text: string, highlights: number[][]) =>
  highlightSegments(text, highlights)
    .map((segment) => (segment.mark ? `[${segment.text}]` : segment.text))
    .join('');

describe('highlightSegments', () => {
  it('marks the ranges and keeps the text between them, in order', () => {
    expect(highlightSegments('the Café au lait contract', [[4, 8]])).toEqual([
      { text: 'the ', mark: false },
      { text: 'Café', mark: true },
      { text: ' au lait contract', mark: false },
    ]);
    expect(
      marked('Café au lait', [
        [0, 4],
        [8, 12],
      ]),
    ).toBe('[Café] au [lait]');
  });

  it('gives the whole text unmarked without ranges, and nothing for an empty snippet', () => {
    expect(highlightSegments('plain words', [])).toEqual([{ text: 'plain words', mark: false }]);
    expect(highlightSegments('', [[0, 3]])).toEqual([]);
  });

  it('sorts unsorted ranges and merges overlapping and touching ones', () => {
    expect(
      marked('abcdefghij', [
        [6, 8],
        [1, 3],
      ]),
    ).toBe('a[bc]def[gh]ij');
    expect(
      marked('abcdefghij', [
        [1, 5],
        [3, 7],
      ]),
    ).toBe('a[bcdefg]hij');
    expect(
      marked('abcdefghij', [
        [2, 4],
        [4, 6],
      ]),
    ).toBe('ab[cdef]ghij');
    expect(
      marked('abcdefghij', [
        [1, 9],
        [2, 3],
      ]),
    ).toBe('a[bcdefghi]j');
  });

  it('clamps ranges to the text and drops empty, reversed or broken ones', () => {
    expect(marked('abc', [[-5, 1]])).toBe('[a]bc');
    expect(marked('abc', [[2, 99]])).toBe('ab[c]');
    expect(
      marked('abc', [
        [2, 2],
        [3, 1],
        [10, 12],
      ]),
    ).toBe('abc');
    expect(marked('abc', [[0.5, 2], [Number.NaN, 1], [1]])).toBe('abc');
  });

  it('never splits a surrogate pair: a range cutting one takes the whole character', () => {
    const text = 'x😀y🎉z';
    // 😀 is [1, 3), 🎉 is [4, 6) in UTF-16 code units.
    expect(marked(text, [[1, 3]])).toBe('x[😀]y🎉z');
    expect(marked(text, [[2, 3]])).toBe('x[😀]y🎉z');
    expect(marked(text, [[1, 2]])).toBe('x[😀]y🎉z');
    expect(marked(text, [[3, 5]])).toBe('x😀[y🎉]z');
    const loneHalf = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const segment of highlightSegments(text, [[2, 5]])) expect(segment.text).not.toMatch(loneHalf);
  });

  it('counts UTF-16 code units, as the node does, after astral characters', () => {
    const text = '🙂 Café';
    expect(marked(text, [[3, 7]])).toBe('🙂 [Café]');
  });
});

describe('normalizeRanges', () => {
  it('returns sorted, disjoint ranges inside the text', () => {
    expect(
      normalizeRanges('abcdefghij', [
        [8, 20],
        [0, 2],
        [1, 4],
        [6, 6],
      ]),
    ).toEqual([
      [0, 4],
      [8, 10],
    ]);
  });
});
