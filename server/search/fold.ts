/**
 * How the search index sees text, rebuilt in JavaScript for the parts of search that run outside
 * SQLite: the query parser (which words a query holds, where each one starts) and snippets (which
 * words to highlight).
 *
 * The FTS5 tables use `unicode61 remove_diacritics 2`. Its own folding is not reproduced exactly:
 * SQLite keeps its own Unicode tables, strips diacritics from Latin letters only (`й`, `ά` and the
 * Hangul syllables stay as they are) and leaves compatibility characters alone (`ﬁ`, `½`). So
 * `foldText` is used only to compare text with text folded the same way (a query's words with a
 * document's, for highlights), never to build what FTS5 matches: query.ts hands FTS5 the user's own
 * characters, quoted, and FTS5 folds them as it folded the documents.
 */

/**
 * A run of token characters as unicode61 splits text: letters, digits and private-use characters
 * (its default categories `L* N* Co`), carrying the combining marks that follow them. A run never
 * starts with a mark, so a token always holds at least one letter or digit.
 */
const TOKEN_RUN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{M}]*/gu;

const MARKS = /\p{M}/gu;

export interface TextToken {
  /** The folded form, for comparing. */
  token: string;
  /** UTF-16 offsets of the token in the text given to `tokenize`, so highlights map back exactly. */
  start: number;
  end: number;
}

/**
 * Case and accents folded away: `Café` → `cafe`. Compatibility decomposition also folds `ﬁ` to `fi`
 * and full-width letters to ASCII; `ß` has no decomposition and stays. Lower-casing comes before
 * the marks are dropped because it can add one (`İ` lower-cases to `i` and a combining dot), and
 * the result is composed again so that Hangul, which NFKD splits into jamo, reads as syllables.
 */
export function foldText(text: string): string {
  return text.normalize('NFKD').toLowerCase().replace(MARKS, '').normalize('NFC');
}

/** The tokens of `text`, folded, with their offsets in `text` itself. */
export function tokenize(text: string): TextToken[] {
  const tokens: TextToken[] = [];
  for (const run of text.matchAll(TOKEN_RUN)) {
    const token = foldText(run[0]);
    // Folding keeps at least the base letter or digit of a run; the check keeps the promise
    // that no token is empty even for a code point whose decomposition is all marks.
    if (token !== '') tokens.push({ token, start: run.index, end: run.index + run[0].length });
  }
  return tokens;
}
