import { describe, expect, it } from 'vitest';
import { generatePhrase, PHRASE_BITS, PHRASE_WORDS } from './phrase.ts';
import { WORDS } from '../../../contract/node/kit-words.ts';

describe('a generated kit passphrase', () => {
  it('is seven words of a list of 2,048 distinct words, about 80 bits', () => {
    expect(WORDS).toHaveLength(2048);
    expect(new Set(WORDS).size).toBe(2048);
    expect(new Set(WORDS.map((word) => word.slice(0, 4))).size).toBe(2048);
    expect(PHRASE_BITS).toBe(77);
    const phrase = generatePhrase().split(' ');
    expect(phrase).toHaveLength(PHRASE_WORDS);
    expect(phrase.every((word) => WORDS.includes(word))).toBe(true);
  });

  it('differs from one draw to the next', () => {
    const drawn = new Set(Array.from({ length: 50 }, () => generatePhrase()));
    expect(drawn.size).toBe(50);
  });
});
