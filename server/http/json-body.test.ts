import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-body.ts';

const deeper = (text: string, max: number): boolean => nestsDeeperThan(Buffer.from(text, 'utf8'), max);

describe('nestsDeeperThan', () => {
  it('counts arrays and objects alike, and only while they are open', () => {
    expect(deeper('[{"a":[]}]', 3)).toBe(false);
    expect(deeper('[{"a":[[]]}]', 3)).toBe(true);
    expect(deeper('[[],[],[],[]]', 2)).toBe(false);
    expect(deeper('1', 0)).toBe(false);
    expect(deeper('[]', 0)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes and backslashes included', () => {
    expect(deeper('["[[[[", "{{{{"]', 1)).toBe(false);
    expect(deeper('["\\"[[[[", "\\\\"]', 1)).toBe(false);
    // After an escaped backslash the quote closes the string, so the next bracket counts.
    expect(deeper('["\\\\", []]', 1)).toBe(true);
  });

  it('is not fooled by multi-byte UTF-8 characters', () => {
    expect(deeper('["日本[語", "😀{"]', 1)).toBe(false);
    expect(deeper('[["日本語"]]', 1)).toBe(true);
  });

  it('walks 1,000,000 levels without recursion', () => {
    expect(deeper(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`, 64)).toBe(true);
  });
});
