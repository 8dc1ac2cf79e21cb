import Database from 'better-sqlite3-multiple-ciphers';
import { afterAll, describe, expect, it } from 'vitest';
import { PhraseCounter, bm25, idf } from './bm25.ts';
import { parseQuery } from './query.ts';

const counter = (q: string) => new PhraseCounter(parseQuery(q).phrases);
const body = (text: string) => [{ text, weight: 1 }];

describe('PhraseCounter', () => {
  it('counts whole words, folding case and accents, and prefixes only where the query has one', () => {
    expect(counter('report').count(body('Report: the report, reported; reports.')).frequencies).toEqual([2]);
    expect(counter('report*').count(body('Report: the report, reported; reports.')).frequencies).toEqual([4]);
    expect(counter('cafe').count(body('Un CAFÉ, deux cafés, le café.')).frequencies).toEqual([2]);
    expect(counter('café').count(body('cafe CAFE')).frequencies).toEqual([2]);
  });

  it('counts a phrase only with its words in order, whatever punctuation is between them', () => {
    const phrase = counter('"quarterly budget review"');
    expect(phrase.count(body('The quarterly budget review; a quarterly-budget, review! budget quarterly review')).frequencies).toEqual([2]);
    expect(counter('e-mail').count(body('email e-mail e mail')).frequencies).toEqual([2]);
  });

  it('weighs each occurrence by its column, and measures the row in characters', () => {
    const counts = counter('fox OR hen').count([
      { text: 'Fox', weight: 4 },
      { text: 'a fox and a hen', weight: 1 },
      { text: 'fox', weight: 0 },
    ]);
    expect(counts).toEqual({ frequencies: [5, 1], length: 3 + 15 + 3 });
  });

  it('counts in text beyond Latin and leaves negated words out', () => {
    expect(counter('日本').count(body('東京 日本 日本語')).frequencies).toEqual([1]);
    expect(counter('straße').count(body('Die Straße, die STRASSE')).frequencies).toEqual([1]);
    expect(counter('fox -hen').count(body('fox hen')).frequencies).toEqual([1]);
  });
});

describe('bm25', () => {
  const db = new Database(':memory:');
  afterAll(() => db.close());

  it('is the score FTS5 gives, fed the same row counts and lengths', () => {
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(title, text, tokenize='unicode61 remove_diacritics 2')`);
    const rows = [
      ['Fox report', 'The quick brown fox jumps over the lazy dog'],
      ['Weather', 'Rain, then a fox; then rain again and a quarterly report'],
      ['Minutes', 'Nothing about animals at all in these minutes of the meeting'],
      ['Fox and hen', 'A fox, a fox and a hen: the fox wins'],
      ['Quarterly', 'The quarterly report is late'],
    ];
    const insert = db.prepare(`INSERT INTO t (title, text) VALUES (?, ?)`);
    for (const [title, text] of rows) insert.run(title, text);
    const tokens = (text: string) => text.split(/[^A-Za-z]+/).filter(Boolean).length;
    const averageLength = rows.reduce((sum, [title, text]) => sum + tokens(title!) + tokens(text!), 0) / rows.length;

    for (const q of ['fox', 'report OR fox', 'quarterly report', '"quarterly report"', 'fo*']) {
      const query = parseQuery(q);
      const fts5 = db.prepare(`SELECT rowid, bm25(t, 3.0, 1.0) AS score FROM t WHERE t MATCH ?`).all(query.match(['title', 'text'])) as Array<{
        rowid: number;
        score: number;
      }>;
      expect(fts5.length).toBeGreaterThan(0);
      const idfs = query.phrases.map((phrase) =>
        idf(
          rows.length,
          db
            .prepare(`SELECT count(*) FROM t WHERE t MATCH ?`)
            .pluck()
            .get(phrase.match(['title', 'text'])) as number,
        ),
      );
      const phrases = new PhraseCounter(query.phrases);
      for (const { rowid, score } of fts5) {
        const [title, text] = rows[rowid - 1]!;
        const counts = phrases.count([
          { text: title!, weight: 3 },
          { text: text!, weight: 1 },
        ]);
        // FTS5 measures rows in tokens; given the same, the formula agrees to the last digits.
        expect(bm25({ ...counts, length: tokens(title!) + tokens(text!) }, idfs, averageLength)).toBeCloseTo(score, 9);
      }
    }
  });

  it('floors the rarity of a phrase most rows hold, as FTS5 does, so it still counts', () => {
    expect(idf(10, 9)).toBe(1e-6);
    expect(idf(1000, 10)).toBeGreaterThan(idf(1000, 100));
  });
});
