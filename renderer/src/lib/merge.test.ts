import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitLines } from './diff.ts';
import { merge3, mergedText } from './merge.ts';

const text = (...lines: string[]): string => lines.map((line) => `${line}\n`).join('');

describe('merge3', () => {
  it('keeps both edits when they change different lines, next to each other too', () => {
    const base = text('# Plan', 'We ship on Friday.', 'Write the notes', 'Tell the team');
    const ours = text('# Plan', 'We ship on Monday.', 'Write the notes', 'Tell the team');
    const theirs = text('# Plan', 'We ship on Friday.', 'Write the release notes', 'Tell the team', 'Post the demo');
    const merged = merge3(base, ours, theirs);
    expect(merged.conflicts).toBe(0);
    expect(mergedText(merged)).toBe(text('# Plan', 'We ship on Monday.', 'Write the release notes', 'Tell the team', 'Post the demo'));
  });

  it('takes a change both sides made once', () => {
    const merged = merge3(text('a', 'b'), text('a', 'B', 'c'), text('a', 'B', 'c'));
    expect(merged).toEqual({ chunks: [{ kind: 'clean', lines: ['a', 'B', 'c'] }], conflicts: 0, finalNewline: true });
  });

  it('makes a conflict of a line both changed differently, decided by mine, theirs or both', () => {
    const merged = merge3(text('a', 'b', 'c'), text('a', 'mine', 'c'), text('a', 'theirs', 'c'));
    expect(merged.chunks).toEqual([
      { kind: 'clean', lines: ['a'] },
      { kind: 'conflict', base: ['b'], ours: ['mine'], theirs: ['theirs'] },
      { kind: 'clean', lines: ['c'] },
    ]);
    expect(mergedText(merged, ['ours'])).toBe(text('a', 'mine', 'c'));
    expect(mergedText(merged, ['theirs'])).toBe(text('a', 'theirs', 'c'));
    expect(mergedText(merged, ['both'])).toBe(text('a', 'mine', 'theirs', 'c'));
    // Undecided, mine stays: the draft is never dropped by default.
    expect(mergedText(merged)).toBe(text('a', 'mine', 'c'));
  });

  it('makes a conflict of two different insertions at the same place', () => {
    const merged = merge3(text('a'), text('a', 'mine'), text('a', 'theirs'));
    expect(merged.conflicts).toBe(1);
    expect(mergedText(merged, ['both'])).toBe(text('a', 'mine', 'theirs'));
  });

  it('makes a conflict of a deleted stretch the other side edited, and keeps a deletion next to their edit', () => {
    expect(mergedText(merge3(text('a', 'b', 'c'), text('a', 'c'), text('a', 'b', 'C')))).toBe(text('a', 'C'));
    const merged = merge3(text('a', 'b', 'c', 'd'), text('a', 'd'), text('a', 'b', 'C', 'd'));
    expect(merged.chunks[1]).toEqual({ kind: 'conflict', base: ['b', 'c'], ours: [], theirs: ['b', 'C'] });
  });

  it('merges the final newline like a line, and empty texts', () => {
    expect(mergedText(merge3('a\n', 'a\n', 'a'))).toBe('a');
    expect(mergedText(merge3('a\n', 'a', 'a\nb\n'))).toBe('a\nb');
    expect(mergedText(merge3('', '', ''))).toBe('');
    expect(mergedText(merge3('', 'x\n', ''))).toBe('x\n');
    expect(mergedText(merge3('x\n', '', 'x\n'))).toBe('');
  });
});

// ---------------------------------------------------------------------------------- properties

/** Texts of a few short lines from a small alphabet, so that lines repeat and diffs get ambiguous. */
const lines = fc.array(fc.constantFrom('a', 'b', 'c', '', '# t', '- x'), { maxLength: 12 });
const textOf = (ls: string[], nl: boolean): string => (ls.length === 0 ? '' : ls.join('\n') + (nl ? '\n' : ''));
const anyText = fc.tuple(lines, fc.boolean()).map(([ls, nl]) => textOf(ls, nl));

describe('merge3 properties', () => {
  it('gives mine when they changed nothing, theirs when I changed nothing, and either when both are equal', () => {
    fc.assert(
      fc.property(anyText, anyText, (base, edit) => {
        expect(mergedText(merge3(base, edit, base))).toBe(edit);
        expect(mergedText(merge3(base, base, edit))).toBe(edit);
        const both = merge3(base, edit, edit);
        expect(both.conflicts).toBe(0);
        expect(mergedText(both)).toBe(edit);
      }),
      { numRuns: 400 },
    );
  });

  it('writes only lines that base, mine or theirs has, however the conflicts are decided', () => {
    fc.assert(
      fc.property(anyText, anyText, anyText, (base, ours, theirs) => {
        const merged = merge3(base, ours, theirs);
        // Every line of the merged text, any way decided, comes from base, mine or theirs. Lines as
        // the merge counts them: an empty text has none, and a final newline ends a line.
        const known = new Set([...splitLines(base), ...splitLines(ours), ...splitLines(theirs)]);
        for (const choice of ['ours', 'theirs', 'both'] as const) {
          const out = mergedText(merged, Array(merged.conflicts).fill(choice));
          for (const line of splitLines(out)) expect(known.has(line)).toBe(true);
        }
      }),
      // The case a random run found: each side deletes the line the other kept, leaving no line at all.
      { numRuns: 400, examples: [['a\nb', 'b', 'a']] },
    );
  });

  it('keeps both edits, without a conflict, when they change different lines (next to each other too)', () => {
    // Base lines are distinct; each line is left alone, changed or deleted by me or by them (never
    // both), or one side inserts a new line after it (its own, distinct from every other).
    const plan = fc.array(fc.constantFrom('keep', 'ours', 'theirs', 'insert-ours', 'insert-theirs', 'delete-ours', 'delete-theirs'), {
      minLength: 1,
      maxLength: 30,
    });
    fc.assert(
      fc.property(plan, (steps) => {
        const base: string[] = [];
        const ours: string[] = [];
        const theirs: string[] = [];
        const expected: string[] = [];
        steps.forEach((step, n) => {
          const line = `line ${n}`;
          base.push(line);
          const mine = step === 'ours' ? `${line} (mine)` : step === 'delete-ours' ? null : line;
          const their = step === 'theirs' ? `${line} (theirs)` : step === 'delete-theirs' ? null : line;
          if (mine !== null) ours.push(mine);
          if (their !== null) theirs.push(their);
          if (mine !== null && their !== null) expected.push(step === 'theirs' ? their : mine);
          if (step === 'insert-ours' || step === 'insert-theirs') {
            const added = `new ${n} (${step === 'insert-ours' ? 'mine' : 'theirs'})`;
            (step === 'insert-ours' ? ours : theirs).push(added);
            expected.push(added);
          }
        });
        const merged = merge3(text(...base), text(...ours), text(...theirs));
        expect(merged.conflicts).toBe(0);
        expect(mergedText(merged)).toBe(expected.length === 0 ? '' : text(...expected));
      }),
      { numRuns: 500 },
    );
  });
});
