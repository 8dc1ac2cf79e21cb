/**
 * Relevance for mail and chat: BM25 (bm25.ts), weighed here from the rows' own text instead of by
 * FTS5's bm25().
 *
 * bm25() learns how rare each phrase is by reading the phrase's whole row list, on every query.
 * For a word in 300,000 of a million messages that list is most of the query's time, and it
 * pushes the pages a search needs out of the cache; a prefix, whose words' lists FTS5 merges
 * first, costs twice. Here the same formula is fed estimates instead:
 * - how many rows hold a phrase: its share of a sample, the newest SAMPLE rows of the index
 *   (pages a node keeps warm), when at least MIN_SAMPLED of them hold it; a phrase rarer than
 *   that is counted in the index itself, cheaply, since its lists are short (exactly up to
 *   SAMPLE rows, by its density among the newest beyond);
 * - how many rows there are: the ids the table spans;
 * - the average length: the rows weighed.
 * The frequencies and lengths are counted in the text of the rows weighed, the window only (at
 * most a thousand rows).
 */
import type { Db } from '../context.ts';
import { PhraseCounter, bm25, idf, type WeightedColumns } from './bm25.ts';
import type { QueryPhrase } from './query.ts';
import { idSpan, type IndexedText, indexedTexts, newestMatches, newestTexts } from './store/index-texts.ts';

/** The newest rows a phrase's frequency is estimated from. */
const SAMPLE = 200;
/** Sampled rows a phrase must be in for its share of the sample to stand for the index. */
const MIN_SAMPLED = 5;

interface ScoredIndex {
  index: 'search_mail' | 'search_chat';
  table: 'messages' | 'chat_messages';
  /** The text columns a query's words are matched in, with their weights: a subject word counts most, then the people. */
  columns: ReadonlyArray<{ name: string; weight: number }>;
}

const SCORED: Record<'mail' | 'chat', ScoredIndex> = {
  mail: {
    index: 'search_mail',
    table: 'messages',
    columns: [
      { name: 'subject', weight: 4 },
      { name: 'body', weight: 1 },
      { name: 'people', weight: 2 },
    ],
  },
  chat: {
    index: 'search_chat',
    table: 'chat_messages',
    columns: [
      { name: 'body', weight: 1 },
      { name: 'people', weight: 2 },
    ],
  },
};

const names = (scored: ScoredIndex): string[] => scored.columns.map((column) => column.name);

/** A row's text columns with their weights, as PhraseCounter reads them. */
const weighted = (scored: ScoredIndex, row: IndexedText): WeightedColumns =>
  scored.columns.map((column) => ({ text: row[column.name] ?? '', weight: column.weight }));

/** The text columns of `kind`'s index, for the query's MATCH. */
export const textColumns = (kind: 'mail' | 'chat'): readonly string[] => names(SCORED[kind]);

/** bm25 (negative, lower is better, as FTS5 gives it) of each of `ids`, rows of `kind`'s index matching `phrases`. */
export function relevanceOf(db: Db, kind: 'mail' | 'chat', phrases: readonly QueryPhrase[], ids: readonly number[]): Map<number, number> {
  const scores = new Map<number, number>();
  const scored = SCORED[kind];
  const span = idSpan(db, scored.table);
  if (ids.length === 0 || span === null) return scores;
  const rows = span.highest - span.lowest + 1;
  const counter = new PhraseCounter(phrases);
  const idfs = estimatedHits(db, kind, phrases, span, counter).map((hits) => idf(rows, hits));
  const counted = indexedTexts(db, scored.index, names(scored), ids).map((row) => ({ id: row.id, counts: counter.count(weighted(scored, row)) }));
  const averageLength = counted.reduce((sum, row) => sum + row.counts.length, 0) / Math.max(1, counted.length);
  for (const row of counted) scores.set(row.id, bm25(row.counts, idfs, averageLength));
  return scores;
}

/** About how many of the rows of `kind`'s index (`span` of ids) hold each phrase (see the top of this file). */
export function estimatedHits(
  db: Db,
  kind: 'mail' | 'chat',
  phrases: readonly QueryPhrase[],
  span: { lowest: number; highest: number },
  counter = new PhraseCounter(phrases),
): number[] {
  const scored = SCORED[kind];
  const rows = span.highest - span.lowest + 1;
  const sample = newestTexts(db, scored.index, names(scored), SAMPLE);
  const sampled = phrases.map(() => 0);
  for (const row of sample) counter.count(weighted(scored, row)).frequencies.forEach((frequency, p) => (sampled[p]! += frequency > 0 ? 1 : 0));
  return phrases.map((phrase, p) => {
    if (sampled[p]! >= MIN_SAMPLED) return (sampled[p]! / sample.length) * rows;
    const newest = newestMatches(db, scored.index, phrase.match(names(scored)), SAMPLE);
    const oldest = newest.at(-1);
    if (newest.length < SAMPLE || oldest === undefined) return newest.length;
    return Math.min(rows, (SAMPLE * rows) / Math.max(1, span.highest - oldest + 1));
  });
}
