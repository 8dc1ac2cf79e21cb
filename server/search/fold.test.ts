import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldText, tokenize } from './fold.ts';

describe('foldText', () => {
  it.each([
    ['Café', 'cafe'],
    ['ÉCOLE', 'ecole'],
    ['e\u0301cole', 'ecole'],
    ['Straße', 'straße'],
    ['İstanbul', 'istanbul'],
    ['ﬁle', 'file'],
    ['Ａｂｃ', 'abc'],
    ['Йогурт', 'иогурт'],
    ['한국어', '한국어'],
    ['😀', '😀'],
  ])('%s → %s', (text, folded) => {
    expect(foldText(text)).toBe(folded);
  });

  it('is idempotent', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => foldText(foldText(text)) === foldText(text)));
  });
});

describe('tokenize', () => {
  it('splits at everything but letters and digits, with offsets into the original text', () => {
    expect(tokenize('Hello, Wörld! e-mail 42x')).toEqual([
      { token: 'hello', start: 0, end: 5 },
      { token: 'world', start: 7, end: 12 },
      { token: 'e', start: 14, end: 15 },
      { token: 'mail', start: 16, end: 20 },
      { token: '42x', start: 21, end: 24 },
    ]);
  });

  it('keeps combining marks inside the word they follow', () => {
    const text = 'une e\u0301cole'; // decomposed é: the mark belongs to the word
    expect(tokenize(text)).toEqual([
      { token: 'une', start: 0, end: 3 },
      { token: 'ecole', start: 4, end: 10 },
    ]);
  });

  it('counts offsets in UTF-16 units around emoji and astral letters', () => {
    expect(tokenize('😀abc😀def')).toEqual([
      { token: 'abc', start: 2, end: 5 },
      { token: 'def', start: 7, end: 10 },
    ]);
    // U+1D49C MATHEMATICAL SCRIPT CAPITAL A is a letter, two UTF-16 units long.
    expect(tokenize('x 𝒜bc')).toEqual([
      { token: 'x', start: 0, end: 1 },
      { token: 'abc', start: 2, end: 6 },
    ]);
  });

  it('finds nothing in punctuation, symbols or lone surrogates', () => {
    expect(tokenize('--- !!! 😀 \ud800 * "')).toEqual([]);
  });

  it('maps every token back to a slice of the original text that folds to it', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.constantFrom('É', 'e\u0301', 'ß', ' ', '-', '😀', '가')),
          maxLength: 80,
        }),
        (text) => {
          let previousEnd = 0;
          for (const { token, start, end } of tokenize(text)) {
            expect(start).toBeGreaterThanOrEqual(previousEnd);
            expect(end).toBeGreaterThan(start);
            expect(foldText(text.slice(start, end))).toBe(token);
            expect(token).not.toBe('');
            previousEnd = end;
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
