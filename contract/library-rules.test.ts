import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  isRef,
  isVersionString,
  nextPatchVersion,
  normalizeTag,
  notNewerProblem,
  readTags,
  tagCountProblem,
  tagProblem,
  tagSuggestion,
  versionProblem,
} from './library-rules.ts';

describe('nextPatchVersion', () => {
  it.each([
    ['0.1.0', '0.1.1'],
    ['0.1.13', '0.1.14'],
    ['0.1.9', '0.1.10'],
    ['1.0.0-rc', '1.0.0-rc.1'],
    ['1.0.0-rc.1', '1.0.0-rc.2'],
    ['2', '3'],
    ['1.0.0+build', '1.0.0+build.1'],
    ['1.2.99999999999999999999', '1.2.100000000000000000000'],
  ])('%s -> %s', (v, next) => {
    expect(nextPatchVersion(v)).toBe(next);
  });

  it('always mints a version that sorts after the one it bumps', () => {
    for (const v of ['0.1.0', '0.1.9', '1.0.0-rc', '1.0.0-rc.9', '1.0.0+b.9', '1.0-2', '1.0.0-rc+5']) {
      expect(compareVersions(nextPatchVersion(v), v)).toBeGreaterThan(0);
    }
  });
});

describe('compareVersions', () => {
  it('orders numeric segments numerically', () => {
    expect(compareVersions('0.1.10', '0.1.9')).toBeGreaterThan(0);
    expect(compareVersions('0.2.0', '0.10.0')).toBeLessThan(0);
    expect(compareVersions('10.0.0', '9.9.9')).toBeGreaterThan(0);
  });

  it('puts a prerelease before its release, and orders prereleases like semver', () => {
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1'];
    const shuffled = [...ordered].reverse();
    expect(shuffled.sort(compareVersions)).toEqual(ordered);
  });

  it('is 0 only for identical strings and antisymmetric otherwise', () => {
    expect(compareVersions('1.0.0', '1.0.0')).toBe(0);
    const pairs: [string, string][] = [
      ['1.0', '1.0.0'],
      ['1.0.0+a', '1.0.0'],
      ['01.0.0', '1.0.0'],
      ['1.0.0+b.10', '1.0.0+b.9'],
    ];
    for (const [a, b] of pairs) {
      expect(compareVersions(a, b)).not.toBe(0);
      expect(Math.sign(compareVersions(a, b))).toBe(-Math.sign(compareVersions(b, a)));
    }
    expect(compareVersions('1.0.0+b.10', '1.0.0+b.9')).toBeGreaterThan(0);
  });

  it('never throws and stays transitive on odd input', () => {
    const odd = ['', '.', '-', '+', 'abc', '1..2', '1.x', '1.0.0-', '1.0.0--', '1.0.0-rc', '1', '1.0', '0', 'z9', '9z'];
    const sorted = [...odd].sort(compareVersions);
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) expect(compareVersions(sorted[i]!, sorted[j]!)).toBeLessThan(0);
    }
  });
});

describe('isVersionString', () => {
  it('accepts 1-64 of [0-9A-Za-z.+-] starting with a digit', () => {
    for (const v of ['0', '0.1.0', '1.0.0-rc.1+build.5', `1${'0'.repeat(63)}`]) expect(isVersionString(v)).toBe(true);
    for (const v of ['', 'v1', '.1', '1 0', '1/0', '1_0', `1${'0'.repeat(64)}`]) expect(isVersionString(v)).toBe(false);
  });
});

describe('versionProblem', () => {
  it('says in words why a typed version cannot be one, and nothing for one that can', () => {
    expect(versionProblem('0.2.0')).toBeNull();
    expect(versionProblem(' 1.0.0-rc.1 ')).toBeNull();
    expect(versionProblem('')).toBe('Enter a version, for example 0.2.0.');
    expect(versionProblem('   ')).toBe('Enter a version, for example 0.2.0.');
    expect(versionProblem('banana')).toBe(
      '"banana" is not a version: use 1-64 characters of 0-9, A-Z, a-z, ".", "+" or "-", starting with a digit, for example 0.2.0.',
    );
    expect(versionProblem('v1.0')).toMatch(/^"v1.0" is not a version/);
    expect(versionProblem('1 0')).toMatch(/is not a version/);
  });

  it('agrees with isVersionString on every input', () => {
    for (const v of ['0', '0.1.0', 'v1', '.1', '1_0', `1${'0'.repeat(64)}`, '1.0.0+b']) expect(versionProblem(v) === null).toBe(isVersionString(v));
  });
});

describe('notNewerProblem', () => {
  it('refuses a version that is not newer than the latest, in the words the node uses', () => {
    expect(notNewerProblem('0.1.1', '0.1.0')).toBeNull();
    expect(notNewerProblem('0.1.10', '0.1.9')).toBeNull();
    expect(notNewerProblem('0.1.0', '0.1.0')).toBe('version 0.1.0 must be newer than the latest version 0.1.0');
    expect(notNewerProblem('0.0.9', '0.1.1')).toBe('version 0.0.9 must be newer than the latest version 0.1.1');
    expect(notNewerProblem('1.0.0-rc', '1.0.0')).toMatch(/must be newer/);
  });
});

describe('isRef', () => {
  it('accepts lowercase refs and refuses anything else', () => {
    for (const r of ['a', 'support.team', 'code-reviewer_2', `a${'b'.repeat(127)}`]) expect(isRef(r)).toBe(true);
    for (const r of ['', '.a', '-a', 'A', 'a b', 'a/b', `a${'b'.repeat(128)}`]) expect(isRef(r)).toBe(false);
  });
});

describe('tags', () => {
  it('spells a tag trimmed and lower-cased, inner spaces as one "-": one rule for case and spaces', () => {
    expect(normalizeTag('  Support ')).toBe('support');
    expect(normalizeTag('CI')).toBe('ci');
    expect(normalizeTag('Shipping Tools')).toBe('shipping-tools');
    expect(normalizeTag(' Shipping \t  Tools ')).toBe('shipping-tools');
    expect(normalizeTag('   ')).toBe('');
  });

  it('refuses a space or another character outside a-z, 0-9, ".", "_" and "-", and a tag over 64 characters', () => {
    expect(tagProblem('code-review')).toBeNull();
    expect(tagProblem('code review')).toBe('tag "code review" may only use a-z, 0-9, ".", "_" and "-"');
    expect(tagProblem('a'.repeat(64))).toBeNull();
    expect(tagProblem('a'.repeat(65))).toBe('tag must be at most 64 characters');
  });

  it('suggests a tag close to a refused one, and none when nothing usable is left', () => {
    expect(tagSuggestion('code review')).toBe('code-review');
    expect(tagSuggestion('émoji')).toBe('emoji');
    expect(tagSuggestion('c++ / rust')).toBe('c-rust');
    expect(tagSuggestion('✨')).toBeNull();
    expect(tagSuggestion('fine')).toBeNull();
  });

  it('reads what was typed the way the node will: "Code Review" is one tag, code-review, never two', () => {
    expect(readTags(['Code Review', 'C++', ' Email ', '', 'ok.1'])).toEqual([
      { typed: 'Code Review', tag: 'code-review', problem: null, suggestion: null },
      { typed: 'C++', tag: 'c++', problem: 'tag "c++" may only use a-z, 0-9, ".", "_" and "-"', suggestion: 'c' },
      { typed: ' Email ', tag: 'email', problem: null, suggestion: null },
      { typed: 'ok.1', tag: 'ok.1', problem: null, suggestion: null },
    ]);
  });

  it('allows at most 32 distinct tags', () => {
    expect(tagCountProblem(32)).toBeNull();
    expect(tagCountProblem(33)).toBe('at most 32 tags are allowed (got 33)');
  });
});
