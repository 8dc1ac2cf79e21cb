import { describe, expect, it } from 'vitest';
import { compareVersions, isVersionString, nextPatchVersion } from './versions.ts';

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
