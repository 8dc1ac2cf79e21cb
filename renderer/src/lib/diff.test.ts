import { describe, expect, it } from 'vitest';
import { diffLines, diffStats, foldUnchanged, splitLines, splitRows } from './diff.ts';
import type { DiffLine } from './diff.ts';

const kinds = (lines: readonly { kind: string }[]) => lines.map((l) => l.kind).join(' ');

describe('splitLines', () => {
  it('drops the final newline, treats null and empty as no lines, and normalises CRLF', () => {
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\nb')).toEqual(['a', 'b']);
    expect(splitLines('a\r\nb\r\n')).toEqual(['a', 'b']);
    expect(splitLines('')).toEqual([]);
    expect(splitLines(null)).toEqual([]);
    expect(splitLines('\n')).toEqual(['']);
  });
});

describe('diffLines', () => {
  it('keeps equal texts as unchanged lines with both line numbers', () => {
    expect(diffLines('a\nb\n', 'a\nb')).toEqual([
      { kind: 'same', text: 'a', oldNo: 1, newNo: 1 },
      { kind: 'same', text: 'b', oldNo: 2, newNo: 2 },
    ]);
  });

  it('finds a changed line between common lines', () => {
    const lines = diffLines('one\ntwo\nthree\n', 'one\nTWO\nthree\n');
    expect(lines).toEqual([
      { kind: 'same', text: 'one', oldNo: 1, newNo: 1 },
      { kind: 'del', text: 'two', oldNo: 2 },
      { kind: 'add', text: 'TWO', newNo: 2 },
      { kind: 'same', text: 'three', oldNo: 3, newNo: 3 },
    ]);
    expect(diffStats(lines)).toEqual({ added: 1, removed: 1 });
  });

  it('uses the longest common subsequence for insertions and deletions in the middle', () => {
    const lines = diffLines('a\nb\nc\nd\ne\n', 'a\nc\nx\nd\ne\ny\n');
    expect(kinds(lines)).toBe('same del same add same same add');
    expect(lines.filter((l) => l.kind !== 'del').map((l) => l.text)).toEqual(['a', 'c', 'x', 'd', 'e', 'y']);
    expect(lines.filter((l) => l.kind !== 'add').map((l) => l.text)).toEqual(['a', 'b', 'c', 'd', 'e']);
    // Line numbers follow each side.
    expect(lines.find((l) => l.text === 'y')).toEqual({ kind: 'add', text: 'y', newNo: 6 });
    expect(lines.find((l) => l.text === 'd')).toEqual({ kind: 'same', text: 'd', oldNo: 4, newNo: 4 });
  });

  it('shows a new text as all added and a deleted one as all removed', () => {
    expect(kinds(diffLines(null, 'x\ny\n'))).toBe('add add');
    expect(kinds(diffLines('x\ny\n', null))).toBe('del del');
    expect(diffLines(null, null)).toEqual([]);
  });
});

describe('foldUnchanged', () => {
  const same = (n: number): DiffLine[] => Array.from({ length: n }, (_, i) => ({ kind: 'same', text: `l${i}`, oldNo: i + 1, newNo: i + 1 }));

  it('keeps three lines of context around a change and folds the rest', () => {
    const lines = [...same(10), { kind: 'add', text: 'new', newNo: 11 } as DiffLine, ...same(10)];
    const folded = foldUnchanged(lines);
    expect(folded.map((l) => (l.kind === 'skip' ? `skip${l.count}` : l.kind))).toEqual([
      'skip7',
      'same',
      'same',
      'same',
      'add',
      'same',
      'same',
      'same',
      'skip7',
    ]);
  });

  it('does not fold a run that is barely longer than its context', () => {
    const lines = [{ kind: 'del', text: 'x', oldNo: 1 } as DiffLine, ...same(7), { kind: 'add', text: 'y', newNo: 8 } as DiffLine];
    expect(foldUnchanged(lines).some((l) => l.kind === 'skip')).toBe(false);
  });

  it('folds an unchanged text whole', () => {
    expect(foldUnchanged(same(20))).toEqual([{ kind: 'skip', count: 20 }]);
  });
});

describe('splitRows', () => {
  it('pairs removed with added lines in each changed block', () => {
    const rows = splitRows(diffLines('a\nb\nc\nd\n', 'a\nB\nC\nX\nd\n'));
    expect(rows.map((r) => (r.kind === 'skip' ? 'skip' : `${r.left?.text ?? '·'}|${r.right?.text ?? '·'}`))).toEqual(['a|a', 'b|B', 'c|C', '·|X', 'd|d']);
  });

  it('passes folds through', () => {
    const rows = splitRows([
      { kind: 'skip', count: 4 },
      { kind: 'del', text: 'x', oldNo: 5 },
    ]);
    expect(rows).toEqual([
      { kind: 'skip', count: 4 },
      { kind: 'line', left: { kind: 'del', text: 'x', oldNo: 5 }, right: null },
    ]);
  });
});
