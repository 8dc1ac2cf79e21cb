import { describe, expect, it } from 'vitest';
import { allocateAlias, successorAlias } from './aliases.ts';

const takenOf = (aliases: string[]) => (alias: string) => aliases.includes(alias);

describe('aliases', () => {
  it('hands out the classic names in order, then numbered ones', () => {
    expect(allocateAlias(takenOf([]))).toBe('alice');
    expect(allocateAlias(takenOf(['alice', 'bob']))).toBe('carol');
    const classic = [
      'alice',
      'bob',
      'carol',
      'dave',
      'erin',
      'frank',
      'grace',
      'heidi',
      'ivan',
      'judy',
      'mallory',
      'niaj',
      'olivia',
      'peggy',
      'rupert',
      'sybil',
      'trent',
      'victor',
      'walter',
      'zoe',
    ];
    expect(allocateAlias(takenOf(classic))).toBe('alice-02');
    expect(allocateAlias(takenOf([...classic, 'alice-02']))).toBe('bob-02');
  });

  it('refuses once every alias is taken', () => {
    expect(() => allocateAlias(() => true)).toThrow(expect.objectContaining({ code: 'SVC_ERR_ALIAS_EXHAUSTED' }));
    expect(() => successorAlias('x', () => true)).toThrow(expect.objectContaining({ code: 'SVC_ERR_ALIAS_EXHAUSTED' }));
  });

  it('numbers a successor from 2 and keeps it within 64 characters', () => {
    expect(successorAlias('alice', takenOf([]))).toBe('alice-2');
    expect(successorAlias('alice', takenOf(['alice-2', 'alice-3']))).toBe('alice-4');
    expect(successorAlias('a'.repeat(64), takenOf([]))).toBe('a'.repeat(64));
  });
});
