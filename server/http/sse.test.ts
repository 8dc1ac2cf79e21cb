import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { MAX_STREAM_SECONDS, streamDeadline } from './sse.ts';

const NOW = new Date('2026-04-18T12:00:00.000Z');
const refusal = (value: unknown, required = true): ServiceError => {
  try {
    streamDeadline(value, NOW, required);
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error(`${String(value)} was accepted`);
};

describe('streamDeadline', () => {
  it('takes a deadline within 300 s as it is', () => {
    expect(streamDeadline('2026-04-18T12:01:30Z', NOW)).toEqual(new Date('2026-04-18T12:01:30Z'));
    expect(streamDeadline('2026-04-18T14:00:01.250+02:00', NOW)).toEqual(new Date('2026-04-18T12:00:01.250Z'));
  });

  it('caps a later deadline at now + 300 s', () => {
    const cap = new Date(NOW.getTime() + MAX_STREAM_SECONDS * 1000);
    expect(MAX_STREAM_SECONDS).toBe(300);
    expect(streamDeadline('2026-04-18T13:00:00Z', NOW)).toEqual(cap);
    expect(streamDeadline('2026-04-18T12:05:00.001Z', NOW)).toEqual(cap);
    expect(streamDeadline('2099-01-01T00:00:00Z', NOW)).toEqual(cap);
    // Optional where a route allows it: the cap.
    expect(streamDeadline(undefined, NOW, false)).toEqual(cap);
  });

  it('refuses a missing, malformed, zone-less or past deadline with a 422 on query.deadline', () => {
    for (const value of [undefined, '', 'tomorrow', '2026-04-18T12:01:00', '2026-04-18', ['2026-04-18T12:01:00Z'], '2026-04-18T12:00:00Z', '2026-04-18T11:59:00Z']) {
      const error = refusal(value);
      expect(error.statusCode).toBe(422);
      expect(error.detail).toEqual([expect.objectContaining({ loc: ['query', 'deadline'] })]);
    }
  });
});
