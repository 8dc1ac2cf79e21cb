/**
 * The memorable passphrase `kit create` offers (contract/node/kit-words.ts: seven words from a
 * fixed list of 2,048, 77 bits); easier to write down and type back than random characters of the
 * same strength.
 */
import { randomInt } from 'node:crypto';
import { phraseOf } from '../../../contract/node/kit-words.ts';

export { PHRASE_BITS, PHRASE_WORDS } from '../../../contract/node/kit-words.ts';

export function generatePhrase(): string {
  return phraseOf(randomInt);
}
