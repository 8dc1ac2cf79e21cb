/**
 * A three-way merge of two edits of one text, line by line (diff3): `ours` (the local draft) and
 * `theirs` (the version saved elsewhere meanwhile), each against `base`, the version both started
 * from. Where only one side changed a stretch of lines, that change is taken; where both changed
 * it the same way, once; where both changed it differently, the stretch is a conflict for the
 * person to decide (mine, theirs, or both). Nothing either side wrote is dropped without a choice.
 *
 * Each side's edit is its line diff against `base` (diff.ts), as hunks: a stretch of base lines
 * replaced by other lines (an insertion replaces none). Hunks of the two sides conflict when their
 * stretches overlap, or both insert at the same place, unless they made the same change; hunks
 * that only touch (next lines, an insertion just before or after the other's stretch) are both
 * taken, so edits of different lines never conflict, even next to each other. Line endings are taken as "\n" (diff.ts splitLines
 * turns "\r\n" into "\n"); whether the text ends with a newline is merged like a line.
 * Pure; tested in merge.test.ts (with properties: merging with no edit of theirs gives ours, and
 * both edits of different lines are kept).
 */
import { diffLines, splitLines } from './diff.ts';

/** A stretch of the merged text: decided (kept, or taken from the one side that changed it), or a conflict. */
export type MergeChunk = { kind: 'clean'; lines: string[] } | { kind: 'conflict'; base: string[]; ours: string[]; theirs: string[] };

/** How a conflict is decided: my lines, theirs, or mine followed by theirs. */
export type MergeChoice = 'ours' | 'theirs' | 'both';

export interface MergeResult {
  chunks: MergeChunk[];
  /** How many conflicts there are (the chunks of kind "conflict"). */
  conflicts: number;
  /** Whether the merged text ends with a newline. */
  finalNewline: boolean;
}

const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((line, i) => line === b[i]);

/** Base lines [start, end) replaced by `lines` on one side (start = end: an insertion before base line `start`). */
interface Hunk {
  start: number;
  end: number;
  lines: string[];
  side: 'ours' | 'theirs';
}

/** One side's changes of base, in order. */
function hunks(base: string, side: string, name: Hunk['side']): Hunk[] {
  const out: Hunk[] = [];
  let at = 0;
  let open: Hunk | null = null;
  for (const line of diffLines(base, side)) {
    if (line.kind === 'same') {
      open = null;
      at++;
      continue;
    }
    if (open === null) {
      open = { start: at, end: at, lines: [], side: name };
      out.push(open);
    }
    if (line.kind === 'del') open.end = ++at;
    else open.lines.push(line.text);
  }
  return out;
}

/** Two hunks change the same lines: overlapping stretches (an insertion inside the other's counts), or insertions at one place. */
function clash(a: Hunk, b: Hunk): boolean {
  if (a.start < b.end && b.start < a.end) return true;
  return a.start === a.end && b.start === b.end && a.start === b.start;
}

/** Base lines [start, end) with one side's hunks (all inside that stretch) applied. */
function applied(base: readonly string[], start: number, end: number, changes: readonly Hunk[]): string[] {
  const out: string[] = [];
  let at = start;
  for (const hunk of changes) {
    out.push(...base.slice(at, hunk.start), ...hunk.lines);
    at = hunk.end;
  }
  out.push(...base.slice(at, end));
  return out;
}

/** Merges `ours` and `theirs`, both edits of `base`. */
export function merge3(base: string, ours: string, theirs: string): MergeResult {
  const b = splitLines(base);
  const all = [...hunks(base, ours, 'ours'), ...hunks(base, theirs, 'theirs')].sort((x, y) => x.start - y.start || x.end - y.end);
  // Hunks that clash, directly or through another, form one group; a group of one side is clean.
  const groups: Hunk[][] = [];
  for (const hunk of all) {
    const last = groups.at(-1);
    if (last !== undefined && last.some((other) => other.side !== hunk.side && clash(other, hunk))) last.push(hunk);
    else groups.push([hunk]);
  }
  const chunks: MergeChunk[] = [];
  const keep = (lines: string[]): void => {
    if (lines.length === 0) return;
    const last = chunks.at(-1);
    if (last?.kind === 'clean') last.lines.push(...lines);
    else chunks.push({ kind: 'clean', lines });
  };
  let at = 0;
  for (const group of groups) {
    const start = Math.min(...group.map((h) => h.start));
    const end = Math.max(...group.map((h) => h.end));
    keep(b.slice(at, start));
    const mine = applied(
      b,
      start,
      end,
      group.filter((h) => h.side === 'ours'),
    );
    const their = applied(
      b,
      start,
      end,
      group.filter((h) => h.side === 'theirs'),
    );
    const both = group.some((h) => h.side === 'ours') && group.some((h) => h.side === 'theirs');
    if (!both || same(mine, their)) keep(group[0]?.side === 'theirs' && !both ? their : mine);
    else chunks.push({ kind: 'conflict', base: b.slice(start, end), ours: mine, theirs: their });
    at = end;
  }
  keep(b.slice(at));
  const nl = (text: string): boolean => text.endsWith('\n');
  // The final newline is one more line: theirs when only they changed it, else ours.
  const finalNewline = nl(ours) === nl(base) ? nl(theirs) : nl(ours);
  return { chunks, conflicts: chunks.filter((chunk) => chunk.kind === 'conflict').length, finalNewline };
}

/** The merged text, each conflict decided by `choices` (in order; a conflict without a choice keeps mine). */
export function mergedText(result: MergeResult, choices: readonly MergeChoice[] = []): string {
  const lines: string[] = [];
  let conflict = 0;
  for (const chunk of result.chunks) {
    if (chunk.kind === 'clean') {
      lines.push(...chunk.lines);
      continue;
    }
    const choice = choices[conflict++] ?? 'ours';
    if (choice !== 'theirs') lines.push(...chunk.ours);
    if (choice !== 'ours') lines.push(...chunk.theirs);
  }
  if (lines.length === 0) return '';
  return lines.join('\n') + (result.finalNewline ? '\n' : '');
}
