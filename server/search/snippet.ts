/**
 * The piece of a search hit shown under its title: a window of the text around its matches, with
 * the matched words marked. The index is contentless (it keeps no text to cut snippets from), so
 * the node cuts them here from the stored text, folding words as the query's terms were folded.
 */
import { tokenize, type TextToken } from './fold.ts';
import type { ParsedQuery } from './query.ts';

export interface Snippet {
  text: string;
  /** [start, end) UTF-16 offsets into `text` of every word matching a term. */
  highlights: Array<[number, number]>;
}

const ELLIPSIS = '…';

/**
 * The densest window of at most `maxChars` (ellipses included, so at least 3) of `text`, whitespace collapsed:
 * the one holding the most matches, the earliest of equals, so a single match gives the window
 * around the first. Cut at spaces where possible, else between words, so no word is shown in part;
 * only a single word longer than the window is cut inside, and never inside a surrogate pair.
 */
export function snippet(text: string, terms: ParsedQuery['highlightTerms'], maxChars = 200): Snippet {
  const flat = text.replace(/\s+/gu, ' ').trim();
  const tokens = tokenize(flat);
  const wanted = terms.filter((term) => term.token !== '');
  const matches = tokens.filter((t) => wanted.some((term) => (term.prefix ? t.token.startsWith(term.token) : t.token === term.token)));
  if (flat.length <= maxChars) return { text: flat, highlights: matches.map((m) => [m.start, m.end]) };

  // Room for an ellipsis at each end, the most a cut window can need.
  const budget = Math.max(1, maxChars - 2);
  const window = matches.length === 0 ? { from: 0, keepFrom: flat.length, keepTo: 0 } : densest(flat.length, matches, budget);
  const start = cutStart(flat, tokens, window.from, window.keepFrom);
  // Measured from the cut start, so room freed by moving it forward is used after the matches.
  const end = cutEnd(flat, tokens, Math.min(flat.length, start + budget), start, window.keepTo);

  const lead = start > 0 ? ELLIPSIS : '';
  const shift = lead.length - start;
  const highlights = matches
    .filter((m) => m.end > start && m.start < end)
    .map((m): [number, number] => [Math.max(m.start, start) + shift, Math.min(m.end, end) + shift]);
  return { text: lead + flat.slice(start, end) + (end < flat.length ? ELLIPSIS : ''), highlights };
}

/**
 * The window of `budget` characters around the densest run of matches: where it starts, and the
 * span [keepFrom, keepTo) of the matches it was chosen for, which cutting at words must keep.
 */
function densest(length: number, matches: readonly TextToken[], budget: number): { from: number; keepFrom: number; keepTo: number } {
  let best = 0;
  let bestLast = 0;
  let last = 0;
  for (let i = 0; i < matches.length; i++) {
    const first = matches[i] as TextToken;
    last = Math.max(last, i);
    while (last + 1 < matches.length && (matches[last + 1] as TextToken).end - first.start <= budget) last++;
    if (last - i > bestLast - best) [best, bestLast] = [i, last];
  }
  const keepFrom = (matches[best] as TextToken).start;
  const keepTo = (matches[bestLast] as TextToken).end;
  // Spare room is shared before and after the matches, so the first has some context ahead of it.
  const from = keepFrom - Math.min(keepFrom, Math.floor(Math.max(0, budget - (keepTo - keepFrom)) / 2));
  // Near the end of the text, the room left over after it goes before the matches instead.
  return { from: from + budget >= length ? Math.max(0, Math.min(from, length - budget)) : from, keepFrom, keepTo };
}

/** Moves a window start forward to a space, or failing that to the next word, not past `keep`. */
function cutStart(flat: string, tokens: readonly TextToken[], from: number, keep: number): number {
  if (from === 0 || flat.charAt(from - 1) === ' ') return from;
  const space = flat.indexOf(' ', from);
  if (space >= 0 && space + 1 <= keep) return space + 1;
  return tokens.find((t) => t.start >= from)?.start ?? from;
}

/**
 * Moves a window end back to a space, or failing that to the end of a word, not before `keep`;
 * it cuts inside a word only when a single word is wider than the window.
 */
function cutEnd(flat: string, tokens: readonly TextToken[], to: number, start: number, keep: number): number {
  if (to >= flat.length) return flat.length;
  if (flat.charAt(to) === ' ') return trimEnd(flat, to, start);
  const space = flat.lastIndexOf(' ', to - 1);
  if (space > start && space >= keep) return trimEnd(flat, space, start);
  const word = tokens.findLast((t) => t.end <= to && t.start >= start);
  if (word !== undefined) return word.end;
  // One word wider than the window: cut inside it, but not between the halves of a surrogate pair.
  // A window too narrow for even that one code point is left empty rather than made longer.
  const low = flat.charCodeAt(to);
  return low >= 0xdc00 && low <= 0xdfff ? to - 1 : to;
}

function trimEnd(flat: string, end: number, start: number): number {
  let e = end;
  while (e > start && flat.charAt(e - 1) === ' ') e--;
  return e;
}
