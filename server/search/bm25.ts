/**
 * BM25 as FTS5's bm25() computes it, here in JavaScript for the rows a mail or chat search
 * weighs (scoring.ts says why): pure, so the formula is read and tested in one place.
 *
 * For each phrase of the query: its frequency in a row (every occurrence counting its column's
 * weight), saturated by k1 and normalised by the row's length against the average, times the
 * phrase's inverse document frequency. FTS5's constants (k1 = 1.2, b = 0.75) and its IDF floor.
 * The result is negated, as bm25() gives it: lower is better.
 */
import { foldText } from './fold.ts';
import type { QueryPhrase } from './query.ts';

const K1 = 1.2;
const B = 0.75;
/** FTS5 floors an IDF at this, so a phrase in more than half the rows still counts a little. */
const MIN_IDF = 1e-6;

/** How rare a phrase is: `hits` of `rows` hold it. */
export function idf(rows: number, hits: number): number {
  const value = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return value > 0 ? value : MIN_IDF;
}

/** A row as scoring reads it: each column's text with its weight. */
export type WeightedColumns = ReadonlyArray<{ text: string; weight: number }>;

/**
 * Each phrase's weighted frequency in a row, and the row's length. The length is in characters:
 * BM25 uses only a row's length against the average, which characters give as well as tokens,
 * and counting tokens would be most of the work.
 */
export interface PhraseCounts {
  frequencies: number[];
  length: number;
}

/** unicode61's token characters (fold.ts's runs): as a class body for plain ASCII text, and for any text. */
const ASCII_TOKEN_CHARS = 'a-z0-9';
const TOKEN_CHARS = '\\p{L}\\p{N}\\p{Co}\\p{M}';

/** Any character beyond ASCII (written without control characters, for the linter). */
const BEYOND_ASCII = /[\u0080-\uffff]/;

const escape = (token: string): string => token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A phrase as a pattern over folded text: its tokens in order, whole (the last one may be a prefix), anything else between. */
function phrasePattern(phrase: QueryPhrase, chars: string, flags: string): RegExp {
  const body = phrase.tokens.map(escape).join(`[^${chars}]+`);
  return new RegExp(`(?<![${chars}])${body}${phrase.prefix ? '' : `(?![${chars}])`}`, flags);
}

/**
 * Counts a query's phrases in rows of text folded as fold.ts folds (close to FTS5's folding, not
 * exact, which for scoring moves a score a little, never what matches). Plain ASCII text, most
 * text, is matched with ASCII patterns; anything else is folded first, and matched with Unicode
 * ones unless folding left it ASCII ("Café" → "cafe").
 */
export class PhraseCounter {
  readonly #ascii: RegExp[];
  readonly #unicode: RegExp[];

  constructor(phrases: readonly QueryPhrase[]) {
    this.#ascii = phrases.map((phrase) => phrasePattern(phrase, ASCII_TOKEN_CHARS, 'g'));
    this.#unicode = phrases.map((phrase) => phrasePattern(phrase, TOKEN_CHARS, 'gu'));
  }

  count(columns: WeightedColumns): PhraseCounts {
    const frequencies = this.#ascii.map(() => 0);
    let length = 0;
    for (const column of columns) {
      length += column.text.length;
      if (column.weight === 0) continue;
      const text = BEYOND_ASCII.test(column.text) ? foldText(column.text) : column.text.toLowerCase();
      (BEYOND_ASCII.test(text) ? this.#unicode : this.#ascii).forEach((pattern, p) => {
        pattern.lastIndex = 0;
        let found = 0;
        while (pattern.exec(text) !== null) found++;
        frequencies[p]! += found * column.weight;
      });
    }
    return { frequencies, length };
  }
}

/** bm25() of one row: `idfs` per phrase, `averageLength` the rows' mean length. */
export function bm25(counts: PhraseCounts, idfs: readonly number[], averageLength: number): number {
  const norm = K1 * (1 - B + (B * counts.length) / (averageLength > 0 ? averageLength : 1));
  let score = 0;
  counts.frequencies.forEach((frequency, p) => {
    score += (idfs[p] ?? MIN_IDF) * ((frequency * (K1 + 1)) / (frequency + norm));
  });
  return -score;
}
