import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { KEEPALIVE_INTERVAL_MS, MAX_STREAM_SECONDS, RETRY_MS, streamDeadline, streamWindow } from './sse.ts';

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
    for (const value of [
      undefined,
      '',
      'tomorrow',
      '2026-04-18T12:01:00',
      '2026-04-18',
      ['2026-04-18T12:01:00Z'],
      '2026-04-18T12:00:00Z',
      '2026-04-18T11:59:00Z',
    ]) {
      const error = refusal(value);
      expect(error.statusCode).toBe(422);
      expect(error.detail).toEqual([expect.objectContaining({ loc: ['query', 'deadline'] })]);
    }
  });
});

describe('streamWindow', () => {
  const request = (lastEventId?: string) => ({ headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId } }) as FastifyRequest;
  const cap = new Date(NOW.getTime() + MAX_STREAM_SECONDS * 1000);

  it("closes at the caller's deadline and says so, or at the cap without a deadline frame", () => {
    expect(streamWindow(request(), '2026-04-18T12:01:30Z', NOW)).toEqual({
      closesAt: new Date('2026-04-18T12:01:30Z'),
      deadline: new Date('2026-04-18T12:01:30Z'),
    });
    // Exactly the cap is still the caller's own deadline.
    expect(streamWindow(request(), cap.toISOString(), NOW)).toEqual({ closesAt: cap, deadline: cap });
    expect(streamWindow(request('ev1.x'), '2026-04-18T13:00:00Z', NOW)).toEqual({ closesAt: cap, deadline: null });
  });

  it('answers a reconnect past its deadline with null (a 204), and a first request with the 422', () => {
    expect(streamWindow(request('ev1.x'), '2026-04-18T11:59:00Z', NOW)).toBeNull();
    expect(streamWindow(request('ev1.x'), '2026-04-18T12:00:00Z', NOW)).toBeNull();
    for (const lastEventId of [undefined, '']) {
      expect(() => streamWindow(request(lastEventId), '2026-04-18T11:59:00Z', NOW)).toThrow(/deadline is in the past/);
    }
    // A malformed deadline is a 422 either way.
    expect(() => streamWindow(request('ev1.x'), 'yesterday', NOW)).toThrow(ServiceError);
  });

  it('asks EventSource to reconnect after 1 s and keeps alive every 25 s by default', () => {
    expect(RETRY_MS).toBe(1000);
    expect(KEEPALIVE_INTERVAL_MS).toBe(25_000);
  });
});
