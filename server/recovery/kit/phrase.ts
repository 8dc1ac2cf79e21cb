/**
 * The memorable passphrase `kit create` offers: seven words drawn uniformly from a fixed list of
 * 2,048 (words.ts), 77 bits, which scrypt at the kit's cost makes slow to guess; easier to write
 * down and type back than random characters of the same strength.
 */
import { randomInt } from 'node:crypto';
import { WORDS } from './words.ts';

export const PHRASE_WORDS = 7;

/** The bits of a generated phrase: log2 of the list's length times the words. */
export const PHRASE_BITS = Math.floor(Math.log2(WORDS.length) * PHRASE_WORDS);

export function generatePhrase(): string {
  return Array.from({ length: PHRASE_WORDS }, () => WORDS[randomInt(WORDS.length)]).join(' ');
}
