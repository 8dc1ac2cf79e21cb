import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { MAX_DEPTH, MAX_QUERY_CHARS, MAX_TERMS, parseQuery, SEARCH_QUERY_INVALID } from './query.ts';

const COLUMNS = ['subject', 'body', 'people'] as const;
const match = (q: string) => parseQuery(q).match(COLUMNS);

/** The refusal `parseQuery(q)` throws. */
function refusal(q: string): ServiceError {
  try {
    parseQuery(q);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(q)} parsed`);
}

describe('parseQuery: valid queries', () => {
  it.each([
    ['cafe', '("cafe")'],
    ['Café contr*', '("Café" AND "contr"*)'],
    ['cafe AND contract', '("cafe" AND "contract")'],
    ['"red fox"', '("red" + "fox")'],
    ['"new cont"*', '("new" + "cont"*)'],
    ['e-mail', '("e" + "mail")'],
    ['a -b', '("a" NOT "b")'],
    ['-b a', '("a" NOT "b")'],
    ['a NOT b', '("a" NOT "b")'],
    ['a AND NOT b', '("a" NOT "b")'],
    ['a -b -c', '("a" NOT "b" NOT "c")'],
    ['a b -c', '(("a" AND "b") NOT "c")'],
    ['a -"big fox"', '("a" NOT "big" + "fox")'],
    ['a OR b', '("a" OR "b")'],
    ['a b OR c', '(("a" AND "b") OR "c")'],
    ['a OR b c', '("a" OR ("b" AND "c"))'],
    ['(a OR b) NOT c', '(("a" OR "b") NOT "c")'],
    ['-c (a OR b)', '(("a" OR "b") NOT "c")'],
    ['a OR b -c', '("a" OR ("b" NOT "c"))'],
    ['a -(b OR c)', '("a" NOT ("b" OR "c"))'],
    ['a (b OR (c d))', '("a" AND ("b" OR ("c" AND "d")))'],
    ['NOT NOT a', '("a")'],
    ['a -(-b)', '("a" AND "b")'],
    ['and or not', '("and" AND "or" AND "not")'],
    ['-NOT a', '("a" NOT "NOT")'],
    ['a - b', '("a" AND "b")'],
    ['a --- b', '("a" AND "b")'],
    ['a AND !!!', '("a")'],
    ['(!!!) a', '("a")'],
    ['a OR -!!!', '("a")'],
    ['scope:secret', '("scope" + "secret")'],
    ['{scope} : x', '("scope" AND "x")'],
    ['NEAR(a b)', '("NEAR" AND "a" AND "b")'],
    ['contr**', '("contr"*)'],
    ['-"x"y', '("y" NOT "x")'],
    ['Йогурт άλφα 한국*', '("Йогурт" AND "άλφα" AND "한국"*)'],
  ])('%s', (q, expression) => {
    expect(match(q)).toBe(`{subject body people} : ${expression}`);
  });

  it('wraps the whole expression in the column filter it is given', () => {
    expect(parseQuery('a OR b').match(['title'])).toBe('{title} : ("a" OR "b")');
  });

  it('takes only plain column names, which it writes bare', () => {
    for (const columns of [[], ['sub ject'], ['a}'], ['"x"'], ['NOT'], ['near']]) {
      expect(() => parseQuery('a').match(columns)).toThrow(/plain identifiers/);
    }
  });

  it('lists the positive terms, folded, for highlighting', () => {
    expect(parseQuery('Café "red FOX"* -secret (e-mail OR NOT x y)').highlightTerms).toEqual([
      { token: 'cafe', prefix: false },
      { token: 'red', prefix: false },
      { token: 'fox', prefix: true },
      { token: 'e', prefix: false },
      { token: 'mail', prefix: false },
      { token: 'y', prefix: false },
    ]);
    expect(parseQuery('fox fox* fox').highlightTerms).toEqual([
      { token: 'fox', prefix: false },
      { token: 'fox', prefix: true },
    ]);
  });

  it('takes the bounds themselves', () => {
    expect(() => parseQuery('a'.repeat(MAX_QUERY_CHARS))).not.toThrow();
    expect(() => parseQuery('😀'.repeat(MAX_QUERY_CHARS - 1) + 'a')).not.toThrow();
    expect(() => parseQuery(Array.from({ length: MAX_TERMS }, (_, i) => `w${i}`).join(' '))).not.toThrow();
    expect(() => parseQuery(`${'('.repeat(MAX_DEPTH)}a${')'.repeat(MAX_DEPTH)}`)).not.toThrow();
  });
});

describe('parseQuery: refusals', () => {
  it.each([
    ['', 'empty query'],
    ['   \t', 'empty query'],
    ['!!! ---', 'no searchable words'],
    ['""', 'no searchable words'],
    ['cafe "red fox', 'unclosed quote starting at character 6'],
    ['"', 'unclosed quote starting at character 1'],
    ['(a OR b', 'unbalanced parenthesis: "(" at character 1 is never closed'],
    ['(', 'unbalanced parenthesis: "(" at character 1 is never closed'],
    ['a OR b)', 'unbalanced parenthesis: ")" at character 7 closes nothing'],
    [') a', 'unbalanced parenthesis: ")" at character 1 closes nothing'],
    ['a AND', 'AND at character 3 has nothing after it'],
    ['OR b', 'OR at character 1 has nothing before it'],
    ['AND b', 'AND at character 1 has nothing before it'],
    ['a AND OR b', 'AND at character 3 has nothing after it'],
    ['a OR', 'OR at character 3 has nothing after it'],
    ['a NOT', 'NOT at character 3 has nothing after it'],
    ['(a AND) b', 'AND at character 4 has nothing after it'],
    ['(OR b)', 'OR at character 2 has nothing before it'],
    ['a ()', 'empty parentheses at character 3'],
    ['a -( )', 'empty parentheses at character 4'],
    ['a*', 'prefix too short at character 1'],
    ['cafe é*', 'prefix too short at character 6'],
    ['"new c"*', 'prefix too short at character 1'],
    ['e-m*', 'prefix too short at character 1'],
    ['-a', 'only negative terms: the exclusion at character 1'],
    ['NOT a', 'only negative terms: the exclusion at character 1'],
    ['-a -b', 'only negative terms: the exclusion at character 1'],
    ['a OR -b', 'only negative terms: the exclusion at character 6'],
    ['a (NOT b OR c)', 'only negative terms: the exclusion at character 4'],
    ['😀 "x', 'unclosed quote starting at character 3'],
    ['a'.repeat(MAX_QUERY_CHARS + 1), `query too long: at most ${MAX_QUERY_CHARS} characters`],
    ['😀'.repeat(MAX_QUERY_CHARS + 1), 'query too long'],
    [Array.from({ length: MAX_TERMS + 1 }, (_, i) => `w${i}`).join(' '), `too many terms: at most ${MAX_TERMS}`],
    [`${'('.repeat(MAX_DEPTH + 1)}a${')'.repeat(MAX_DEPTH + 1)}`, `parentheses nested too deep at character ${MAX_DEPTH + 1}`],
  ])('%j: %s', (q, message) => {
    const error = refusal(q);
    expect(error).toMatchObject({
      statusCode: 422,
      code: SEARCH_QUERY_INVALID,
      detail: [{ loc: ['query', 'q'], type: 'value_error', msg: expect.stringContaining(message) }],
    });
  });
});
