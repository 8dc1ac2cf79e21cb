/**
 * A search hit's snippet as pieces of plain text, some marked: the node says where the matched
 * words are (`highlights`, [start, end) in UTF-16 code units of the snippet), and the UI renders
 * each piece as a text node, in a <mark> when it matched, never as HTML (a snippet is someone's
 * mail). Pure; tested in highlight.test.ts.
 *
 * The ranges are taken as they come from the wire: out of order, overlapping, touching, past the
 * end or empty ones are sorted, merged, clamped or dropped, and a range never splits a surrogate
 * pair (half an emoji would render as a replacement character).
 */

export interface Segment {
  text: string;
  mark: boolean;
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** `at`, moved back one code unit when it falls between the halves of a surrogate pair. */
function startOfChar(text: string, at: number): number {
  return at > 0 && at < text.length && isLow(text.charCodeAt(at)) && isHigh(text.charCodeAt(at - 1)) ? at - 1 : at;
}

/** `at`, moved on one code unit when it falls between the halves of a surrogate pair. */
function endOfChar(text: string, at: number): number {
  return at > 0 && at < text.length && isLow(text.charCodeAt(at)) && isHigh(text.charCodeAt(at - 1)) ? at + 1 : at;
}

/** The ranges cleaned: inside the text, whole characters, sorted, overlapping and touching ones merged. */
export function normalizeRanges(text: string, highlights: readonly (readonly number[])[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const range of highlights) {
    const [rawStart, rawEnd] = range;
    if (!Number.isInteger(rawStart) || !Number.isInteger(rawEnd)) continue;
    const start = startOfChar(text, Math.min(Math.max(rawStart ?? 0, 0), text.length));
    const end = endOfChar(text, Math.min(Math.max(rawEnd ?? 0, 0), text.length));
    if (end > start) ranges.push([start, end]);
  }
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last !== undefined && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

/** The snippet as consecutive pieces, the matched ones marked; empty pieces are left out. */
export function highlightSegments(text: string, highlights: readonly (readonly number[])[]): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (const [start, end] of normalizeRanges(text, highlights)) {
    if (start > at) segments.push({ text: text.slice(at, start), mark: false });
    segments.push({ text: text.slice(start, end), mark: true });
    at = end;
  }
  if (at < text.length) segments.push({ text: text.slice(at), mark: false });
  return segments;
}
