import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validationIssues } from '../../test/support/expect.ts';
import { Cursor, streamIds } from './stream-ids.ts';

const ids = streamIds('tt1', z.record(z.string(), Cursor));

describe('streamIds', () => {
  it('encodes a position as an opaque id of its kind, and decodes it back', () => {
    const position = { mail: 12, chat: null, 'app-events': 0 };
    const id = ids.encode(position);
    expect(id).toMatch(/^tt1\.[A-Za-z0-9_-]+$/);
    expect(ids.decode(id)).toEqual(position);
  });

  it('reads no header (or an empty one) as a fresh connection', () => {
    expect(ids.decode(undefined)).toBeNull();
    expect(ids.decode('')).toBeNull();
  });

  it('refuses an id of another kind, a damaged one, one out of shape, or a repeated header (422 on header.last-event-id)', () => {
    const other = streamIds('xx1', z.record(z.string(), Cursor)).encode({ mail: 1 });
    const b64 = (value: unknown) => `tt1.${Buffer.from(JSON.stringify(value)).toString('base64url')}`;
    for (const value of [
      other,
      'tt1',
      'tt1.',
      'tt1.%%%',
      `tt1.${Buffer.from('{not json').toString('base64url')}`,
      b64({ mail: -1 }),
      b64({ mail: 1.5 }),
      b64([1]),
      ['a', 'b'],
    ]) {
      const issues = validationIssues(() => ids.decode(value));
      expect(issues, String(value)).toEqual([expect.objectContaining({ loc: ['header', 'last-event-id'] })]);
    }
  });
});
