import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldText } from './fold.ts';
import { parseQuery } from './query.ts';
import { snippet } from './snippet.ts';

const terms = (q: string) => parseQuery(q).highlightTerms;
/** The highlighted substrings, for reading the tests. */
const marked = (s: { text: string; highlights: Array<[number, number]> }) => s.highlights.map(([a, b]) => s.text.slice(a, b));
const LONE_SURROGATE = /\p{Cs}/u;

const filler = (n: number, word = 'lorem') => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ');

describe('snippet', () => {
  it('returns a short text whole, whitespace collapsed, with every match marked', () => {
    const s = snippet('  Café\n\n au   lait,\tCAFE!  ', terms('cafe'));
    expect(s.text).toBe('Café au lait, CAFE!');
    expect(s.highlights).toEqual([
      [0, 4],
      [14, 18],
    ]);
  });

  it('marks words starting with a prefix term, and whole words only for the others', () => {
    const s = snippet('The contract, the contractor and the con.', terms('contr* the'));
    expect(marked(s)).toEqual(['The', 'contract', 'the', 'contractor', 'the']);
    expect(marked(snippet('an e-mail, email or mail', terms('e-mail')))).toEqual(['e', 'mail', 'mail']);
  });

  it('does not mark excluded terms', () => {
    expect(marked(snippet('red fox, blue fox', terms('fox -blue')))).toEqual(['fox', 'fox']);
  });

  it('cuts a window around a match in a long text, at spaces, with ellipses', () => {
    const text = `${filler(60)} the red fox jumps ${filler(60, 'ipsum')}`;
    const s = snippet(text, terms('fox'), 80);
    expect(s.text.length).toBeLessThanOrEqual(80);
    expect(s.text.startsWith('…') && s.text.endsWith('…')).toBe(true);
    expect(marked(s)).toEqual(['fox']);
    const body = s.text.slice(1, -1);
    // Whole words only: the window starts and ends at a space of the original.
    expect(text).toContain(` ${body} `);
    // The match has context on both sides.
    expect(body.indexOf('fox')).toBeGreaterThan(20);
    expect(body.length - body.indexOf('fox')).toBeGreaterThan(20);
  });

  it('chooses the densest window over the first match', () => {
    const text = `fox ${filler(80)} fox and fox and fox ${filler(80)}`;
    const s = snippet(text, terms('fox'), 60);
    expect(marked(s)).toEqual(['fox', 'fox', 'fox']);
    expect(s.text.startsWith('…')).toBe(true);
  });

  it('starts with no ellipsis when the match is near the start, ends with none near the end', () => {
    const early = snippet(`one fox ${filler(100)}`, terms('fox'), 50);
    expect(early.text.startsWith('one fox')).toBe(true);
    expect(early.text.endsWith('…')).toBe(true);
    const late = snippet(`${filler(100)} the last fox`, terms('fox'), 50);
    expect(late.text.startsWith('…')).toBe(true);
    expect(late.text.endsWith('the last fox')).toBe(true);
    expect(late.text.length).toBeGreaterThan(40);
  });

  it('gives the start of the text and no highlights when nothing matches', () => {
    const s = snippet(`Hello world, ${filler(100)}`, terms('absent'), 40);
    expect(s.text.startsWith('Hello world, lorem0')).toBe(true);
    expect(s.text.endsWith('…')).toBe(true);
    expect(s.highlights).toEqual([]);
    expect(snippet('', terms('a'))).toEqual({ text: '', highlights: [] });
  });

  it('cuts between words when a long run has no spaces', () => {
    const text = `${'ab-'.repeat(100)}fox${'-cd'.repeat(100)}`;
    const s = snippet(text, terms('fox'), 41);
    expect(s.text).toMatch(/^…ab-(ab-)*fox(-cd)*-cd…$/);
    expect(marked(s)).toEqual(['fox']);
  });

  it('never splits a surrogate pair, even inside a word longer than the window', () => {
    const long = `𝒜${'𝒜'.repeat(300)} 😀 fox`;
    for (const q of ['absent', '𝒜𝒜*', 'fox']) {
      const s = snippet(long, terms(q), 51);
      expect(s.text).not.toMatch(LONE_SURROGATE);
      expect(s.text.length).toBeLessThanOrEqual(51);
    }
    const emoji = snippet(`${'😀 '.repeat(100)}fox ${'😀'.repeat(100)}`, terms('fox'), 30);
    expect(emoji.text).not.toMatch(LONE_SURROGATE);
    expect(marked(emoji)).toEqual(['fox']);
  });

  it('keeps every cut within bounds, whole, and marked where the terms match', () => {
    const unit = fc.constantFrom('a', 'b', 'fox', 'Café', ' ', '  ', '\n', '-', ',', '😀', '𝒜', 'e\u0301', 'ß');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 400 }), fc.integer({ min: 3, max: 120 }), (text, maxChars) => {
        const wanted = terms('fox caf* b');
        const s = snippet(text, wanted, maxChars);
        expect(s.text.length).toBeLessThanOrEqual(maxChars);
        expect(s.text).not.toMatch(LONE_SURROGATE);
        expect(s.text).not.toMatch(/\s\s|^\s|\s$/);
        let previous = 0;
        for (const [start, end] of s.highlights) {
          expect(start).toBeGreaterThanOrEqual(previous);
          expect(end).toBeGreaterThan(start);
          expect(end).toBeLessThanOrEqual(s.text.length);
          const word = foldText(s.text.slice(start, end));
          expect(wanted.some((t) => (t.prefix ? word.startsWith(t.token) || t.token.startsWith(word) : word === t.token || t.token.startsWith(word)))).toBe(
            true,
          );
          previous = end;
        }
      }),
      { numRuns: 1000 },
    );
  });
});
