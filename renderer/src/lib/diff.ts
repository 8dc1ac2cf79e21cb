/**
 * Line diffs for proposal review: the longest common subsequence of two texts' lines, as a
 * unified list (kept, removed, added) and as side-by-side rows, with long unchanged runs folded.
 * Pure and small on purpose (no dependency); tested in diff.test.ts.
 */

export type DiffKind = 'same' | 'del' | 'add';

export interface DiffLine {
  kind: DiffKind;
  text: string;
  /** 1-based line number in the old text (same, del). */
  oldNo?: number;
  /** 1-based line number in the new text (same, add). */
  newNo?: number;
}

/** A folded run of unchanged lines. */
export interface DiffSkip {
  kind: 'skip';
  count: number;
}

/** Above this many cells the LCS table is not built; the changed middle shows as replaced. */
const MAX_CELLS = 4_000_000;

/** The lines of a text; a final newline does not make an extra empty line, and null has none. */
export function splitLines(text: string | null): string[] {
  if (text === null || text === '') return [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The line diff of `before` → `after` (null: the text does not exist). */
export function diffLines(before: string | null, after: string | null): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // The common head and tail need no table.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;

  const out: DiffLine[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: 'same', text: a[i] as string, oldNo: i + 1, newNo: i + 1 });
  out.push(...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail), head, head));
  for (let i = tail; i > 0; i--) {
    const oldIndex = a.length - i;
    const newIndex = b.length - i;
    out.push({ kind: 'same', text: a[oldIndex] as string, oldNo: oldIndex + 1, newNo: newIndex + 1 });
  }
  return out;
}

function middle(a: string[], b: string[], oldOffset: number, newOffset: number): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const out: DiffLine[] = [];
  const del = (i: number) => out.push({ kind: 'del', text: a[i] as string, oldNo: oldOffset + i + 1 });
  const add = (j: number) => out.push({ kind: 'add', text: b[j] as string, newNo: newOffset + j + 1 });
  if (n === 0 || m === 0 || (n + 1) * (m + 1) > MAX_CELLS) {
    for (let i = 0; i < n; i++) del(i);
    for (let j = 0; j < m; j++) add(j);
    return out;
  }
  // lcs[i][j]: the LCS length of a[i..] and b[j..], in one flat array.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j] ? (lcs[(i + 1) * width + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i] as string, oldNo: oldOffset + i + 1, newNo: newOffset + j + 1 });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number)) {
      del(i++);
    } else {
      add(j++);
    }
  }
  while (i < n) del(i++);
  while (j < m) add(j++);
  return out;
}

/** How many lines were added and removed. */
export function diffStats(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.kind === 'add') added++;
    else if (line.kind === 'del') removed++;
  }
  return { added, removed };
}

/**
 * Folds unchanged runs longer than twice `context` (keeping `context` lines next to each change);
 * a text without changes is folded whole.
 */
export function foldUnchanged(lines: readonly DiffLine[], context = 3): (DiffLine | DiffSkip)[] {
  const out: (DiffLine | DiffSkip)[] = [];
  let i = 0;
  while (i < lines.length) {
    if ((lines[i] as DiffLine).kind !== 'same') {
      out.push(lines[i] as DiffLine);
      i++;
      continue;
    }
    let end = i;
    while (end < lines.length && (lines[end] as DiffLine).kind === 'same') end++;
    const keepBefore = i === 0 ? 0 : context;
    const keepAfter = end === lines.length ? 0 : context;
    const run = end - i;
    if (run > keepBefore + keepAfter + 1) {
      for (let k = i; k < i + keepBefore; k++) out.push(lines[k] as DiffLine);
      out.push({ kind: 'skip', count: run - keepBefore - keepAfter });
      for (let k = end - keepAfter; k < end; k++) out.push(lines[k] as DiffLine);
    } else {
      for (let k = i; k < end; k++) out.push(lines[k] as DiffLine);
    }
    i = end;
  }
  return out;
}

/** One row of a side-by-side diff: the old line on the left, the new one on the right. */
export type SplitRow = { kind: 'skip'; count: number } | { kind: 'line'; left: DiffLine | null; right: DiffLine | null };

/**
 * Side-by-side rows: unchanged lines on both sides; within each changed block, the removed lines
 * pair up with the added ones in order, the longer side continuing against blanks.
 */
export function splitRows(lines: readonly (DiffLine | DiffSkip)[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let dels: DiffLine[] = [];
  let adds: DiffLine[] = [];
  const flush = () => {
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) rows.push({ kind: 'line', left: dels[k] ?? null, right: adds[k] ?? null });
    dels = [];
    adds = [];
  };
  for (const line of lines) {
    if (line.kind === 'del') dels.push(line);
    else if (line.kind === 'add') adds.push(line);
    else {
      flush();
      rows.push(line.kind === 'skip' ? line : { kind: 'line', left: line, right: line });
    }
  }
  flush();
  return rows;
}
