import { describe, expect, it } from 'vitest';
import { fakeSseStream } from '../../test/support/fake-sse.ts';
import { StreamCap, STREAMS_PER_HOLDER } from './stream-cap.ts';

describe('StreamCap', () => {
  it('closes the oldest of a holder’s streams beyond the cap, with a superseded frame', () => {
    const cap = new StreamCap(2);
    const [a, b, c] = [fakeSseStream(), fakeSseStream(), fakeSseStream()];
    cap.admit('ann', a);
    cap.admit('ann', b);
    expect([a.closed, b.closed]).toEqual([false, false]);
    cap.admit('ann', c);
    expect([a.closed, b.closed, c.closed]).toEqual([true, false, false]);
    expect(a.frames).toEqual([{ event: 'superseded', data: expect.objectContaining({ type: 'superseded', limit: 2 }) }]);
    expect(cap.openCount('ann')).toBe(2);
  });

  it('counts each holder apart, and forgets a stream once it closes, whoever closed it', () => {
    const cap = new StreamCap(1);
    const [a, b, c] = [fakeSseStream(), fakeSseStream(), fakeSseStream()];
    cap.admit('ann', a);
    cap.admit('bob', b);
    expect([a.closed, b.closed]).toEqual([false, false]);
    a.close();
    expect(cap.openCount('ann')).toBe(0);
    cap.admit('ann', c);
    expect(c.closed).toBe(false);
    expect(c.frames).toEqual([]);
  });

  it('defaults to the documented cap', () => {
    const cap = new StreamCap();
    const streams = Array.from({ length: STREAMS_PER_HOLDER + 1 }, () => fakeSseStream());
    for (const stream of streams) cap.admit('ann', stream);
    expect(streams.map((s) => s.closed)).toEqual([true, ...Array(STREAMS_PER_HOLDER).fill(false)]);
  });
});
