import { describe, expect, it } from 'vitest';
import { StreamQuery } from './chat.ts';

const deadline = '2026-06-01T10:05:00Z';

describe('StreamQuery', () => {
  it('reads `after` as the ISO instant stored times compare with, in any offset', () => {
    expect(StreamQuery.parse({ deadline, after: '2026-06-01T12:00:00.5+02:00' })).toEqual({ deadline, after: '2026-06-01T10:00:00.500Z' });
    expect(StreamQuery.parse({ deadline })).toEqual({ deadline });
  });

  it('refuses an `after` that is not an RFC 3339 time with a timezone, at `after`', () => {
    for (const after of ['2026-06-01 10:00:00', '2026-06-01T10:00:00', 'yesterday']) {
      expect(StreamQuery.safeParse({ deadline, after }).error?.issues.map((i) => ({ path: i.path, message: i.message }))).toEqual([
        { path: ['after'], message: 'after must be an RFC 3339 timestamp with a timezone' },
      ]);
    }
  });
});
