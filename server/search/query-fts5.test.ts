/**
 * parseQuery against the real FTS5: whatever a user types either is refused with the 422 or runs,
 * never reaches the scope column, and finds what a person would expect.
 */
import SQLite from 'better-sqlite3-multiple-ciphers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { tokenize } from './fold.ts';
import { parseQuery, SEARCH_QUERY_INVALID } from './query.ts';

const COLUMNS = ['subject', 'body', 'people'] as const;
const SECRET_ROW = 99;

const db = new SQLite(':memory:');
db.exec(`CREATE VIRTUAL TABLE t USING fts5(scope, subject, body, people, content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2', prefix='2 3')`);
const insert = db.prepare(`INSERT INTO t (rowid, scope, subject, body, people) VALUES (?, ?, ?, ?, ?)`);
const rows: Array<[number, string, string]> = [
  [1, 'Café au lait', 'ordered by Zoë'],
  [2, 'The contract', 'is signed, see the e-mail'],
  [3, 'Story', 'the red fox jumps'],
  [4, 'Story', 'a red big fox'],
  [5, 'alpha beta', ''],
  [6, 'alpha gamma', ''],
  [7, 'beta gamma', ''],
  [8, 'Йогурт', 'Άλφα και 한국어'],
  [9, 'scope secret', 'and or not near'],
];
for (const [rowid, subject, body] of rows) insert.run(rowid, 'public', subject, body, 'Ann');
// Words sharing prefixes, for prefixes asked for by their words (migration 0032's word lists).
insert.run(50, 'words', 'contractor contracts', 'controller', 'Bea');
insert.run(51, 'words', 'contrary', 'contribute conTRol', 'Cy');
insert.run(52, 'words', 'red redder reddest', 'alphabet', 'Dee');
db.exec(`CREATE VIRTUAL TABLE t_terms USING fts5vocab(t, 'row')`);
const wordList = db.prepare(`SELECT term FROM t_terms WHERE term >= @prefix AND term < @prefix || char(1114111) LIMIT +@n`).pluck();
/** As the service names a prefix's words (store/index-texts.ts), with a small limit so that "too many" happens too. */
const words = (prefix: string): string[] | null => {
  const found = wordList.all({ prefix, n: 4 }) as string[];
  return found.length > 3 ? null : found;
};
// Reachable only through its scope: its text columns hold nothing at all.
insert.run(SECRET_ROW, 'secret', '', '', '');
insert.run(SECRET_ROW + 1, 'secret', 'alpha beta gamma red fox scope secret public', 'contract', 'Ann');

const search = db.prepare(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid`).pluck();
const find = (match: string) => search.all(match) as number[];
/** As the node will run it: the caller's scope tokens first, the user's query under them. */
const scoped = (scope: string, q: string) => find(`scope : "${scope}" AND (${parseQuery(q).match(COLUMNS)})`);

/** Search-box input, weighted towards the characters and words the grammars of both sides use. */
const queryText = fc
  .array(
    fc.oneof(
      fc.constantFrom('AND', 'OR', 'NOT', 'NEAR', 'NEAR(', '(', ')', '"', '-', '*', ' ', ':', '^', '+', '{', '}', ',', "'"),
      fc.constantFrom(
        'scope',
        'scope:',
        '{scope}',
        '- {subject body people} :',
        'secret',
        'public',
        'alpha',
        'red',
        'fox',
        'contr*',
        'e-mail',
        'Café',
        'x',
        'ab*',
      ),
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), maxLength: 2 }),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
    ),
    { maxLength: 150 },
  )
  .map((pieces) => pieces.join('').slice(0, 600));
const anyQuery = fc.oneof(queryText, fc.string({ unit: 'binary', maxLength: 600 }), fc.string({ maxLength: 600 }));

/** The parsed query, or null when it was refused the one way a query may be refused. */
function parsedOrRefused(q: string) {
  try {
    return parseQuery(q);
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ statusCode: 422, code: SEARCH_QUERY_INVALID });
    return null;
  }
}

describe('parseQuery against FTS5', () => {
  it('refuses any input with the 422 or gives an expression FTS5 accepts', () => {
    fc.assert(
      fc.property(anyQuery, (q) => {
        const parsed = parsedOrRefused(q);
        if (parsed === null) return;
        const match = parsed.match(COLUMNS);
        expect(() => find(match)).not.toThrow();
        expect(() => find(`scope : "x" AND (${match})`)).not.toThrow();
      }),
      { numRuns: 3000 },
    );
  });

  it('never lets user text reach the scope column', () => {
    fc.assert(
      fc.property(anyQuery, (q) => {
        const parsed = parsedOrRefused(q);
        if (parsed === null) return;
        const match = parsed.match(COLUMNS);
        expect(find(match)).not.toContain(SECRET_ROW);
        const seen = find(`scope : "public" AND (${match})`);
        expect(seen).not.toContain(SECRET_ROW);
        expect(seen).not.toContain(SECRET_ROW + 1);
      }),
      { numRuns: 3000 },
    );
  });

  it('finds the same rows with a prefix asked for by its words as by FTS5 prefix', () => {
    const prefixes = fc.constantFrom('contr*', 'Contr*', 'cont*', 'red*', 're*', 'alph*', 'al*', 'zz*', 'ab*', '"red fox"*', 'café*');
    const withPrefixes = fc
      .array(fc.oneof(prefixes, fc.constantFrom('OR', 'AND', '-', 'NOT', '(', ')', ' ', 'alpha', 'fox', 'contractor')), { maxLength: 12 })
      .map((pieces) => pieces.join(' '));
    fc.assert(
      fc.property(fc.oneof(withPrefixes, queryText), (q) => {
        const parsed = parsedOrRefused(q);
        if (parsed === null) return;
        expect(find(parsed.match(COLUMNS, words))).toEqual(find(parsed.match(COLUMNS)));
      }),
      { numRuns: 2000 },
    );
    // Named when few enough, else left to FTS5; a multi-word phrase's prefix always is.
    expect(parseQuery('red* OR contr* "red fox"*').match(COLUMNS, words)).toBe(
      '{subject body people} : (("red" OR "redder" OR "reddest") OR ("contr"* AND "red" + "fox"*))',
    );
  });

  it('writes nothing of the user outside quoted strings but its own operators, inside one group', () => {
    fc.assert(
      fc.property(anyQuery, (q) => {
        const parsed = parsedOrRefused(q);
        if (parsed === null) return;
        const match = parsed.match(COLUMNS);
        const prefix = '{subject body people} : (';
        expect(match.startsWith(prefix) && match.endsWith(')')).toBe(true);
        // Quoted strings (a doubled quote is two strings back to back) out, what is left is syntax.
        const bare = match.slice(prefix.length, -1).replace(/"[^"]*"/g, 'T');
        expect(bare).toMatch(/^(?:T|\(|\)|\*|\+| |AND|OR|NOT)*$/);
        let depth = 0;
        for (const c of bare) {
          depth += c === '(' ? 1 : c === ')' ? -1 : 0;
          expect(depth).toBeGreaterThanOrEqual(0);
        }
        expect(depth).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['cafe', [1]],
    ['CAFÉ', [1]],
    ['zoe', [1]],
    ['contr*', [2]],
    ['Contr*', [2]],
    ['"red fox"', [3]],
    ['red fox', [3, 4]],
    ['"the red"*', [3]],
    ['e-mail', [2]],
    ['alpha -beta', [6]],
    ['-beta alpha', [6]],
    ['alpha NOT beta', [6]],
    ['alpha OR beta', [5, 6, 7]],
    ['(alpha OR beta) NOT gamma', [5]],
    ['gamma -(alpha OR red)', [7]],
    ['alpha OR beta -gamma', [5, 6]],
    ['йогурт', [8]],
    ['άλφα', [8]],
    ['한국*', [8]],
    ['and OR near', [9]],
    ['scope', [9]],
    ['public', []],
    ['ann', [1, 2, 3, 4, 5, 6, 7, 8, 9]],
  ])('%s finds %j', (q, expected) => {
    expect(scoped('public', q)).toEqual(expected);
  });

  it('keeps rows of another scope out even when their text matches', () => {
    expect(scoped('public', 'alpha beta gamma')).toEqual([]);
    expect(scoped('secret', 'alpha beta gamma')).toEqual([SECRET_ROW + 1]);
    expect(scoped('public', 'secret')).toEqual([9]);
  });
});

describe('tokenize against FTS5', () => {
  const plain = new SQLite(':memory:');
  plain.exec(`CREATE VIRTUAL TABLE d USING fts5(x, tokenize='unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE v USING fts5vocab(d, 'instance')`);
  const add = plain.prepare(`INSERT INTO d (rowid, x) VALUES (?, ?)`);
  const terms = plain.prepare(`SELECT term FROM v WHERE doc = ? ORDER BY offset`).pluck();
  // One row at a time: the vocabulary table is scanned whole for each look-up.
  const clear = plain.prepare(`DELETE FROM d`);
  let rowid = 0;

  it('splits text into as many words as FTS5 does, in the common scripts', () => {
    const unit = fc.constantFrom(...'abcxyzABC019éÉèçñüÜßøłæЙйёΆάλφα한국中文あア ,.-\'"!?*():😀'.split(''), 'e\u0301', '𝒜');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        add.run(++rowid, text);
        const words = terms.all(rowid);
        clear.run();
        expect(tokenize(text).length).toBe(words.length);
      }),
      { numRuns: 500 },
    );
  });
});
