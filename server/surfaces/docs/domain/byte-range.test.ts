import { describe, expect, it } from 'vitest';
import { byteRange } from './byte-range.ts';

describe('byteRange', () => {
  it('reads the three single-range forms, clamped to the file', () => {
    expect(byteRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(byteRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(byteRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 });
    expect(byteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
    expect(byteRange('bytes=990-5000', 1000)).toEqual({ start: 990, end: 999 });
    expect(byteRange('bytes=5-5', 1000)).toEqual({ start: 5, end: 5 });
  });

  it('ignores what it does not serve, so the whole file goes out', () => {
    for (const header of [
      undefined,
      '',
      'bytes=',
      'bytes=-',
      'bytes=-0',
      'items=0-9',
      'bytes=0-9,20-29',
      'bytes=9-3',
      'bytes=1000-',
      'bytes=a-b',
      'bytes=99999999999999999-',
    ]) {
      expect(byteRange(header, 1000), String(header)).toBeNull();
    }
    expect(byteRange('bytes=0-9', 0)).toBeNull();
  });
});
