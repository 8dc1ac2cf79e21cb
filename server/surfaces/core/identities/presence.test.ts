import { describe, expect, it } from 'vitest';
import { IdentityPresence, PRESENCE_TTL_SECONDS } from './presence.ts';

const clockAt = (start: number) => {
  let now = start;
  return { clock: { now: () => new Date(now) }, advance: (ms: number) => void (now += ms) };
};

describe('IdentityPresence', () => {
  it('knows nothing of an identity it never saw', () => {
    expect(new IdentityPresence(clockAt(0).clock).of('a')).toEqual({ online: false, last_seen: null });
  });

  it('counts every open stream: online until the last one closes, each release counting once', () => {
    const { clock, advance } = clockAt(Date.UTC(2026, 0, 1));
    const presence = new IdentityPresence(clock);
    const first = presence.streamOpened('a');
    const second = presence.streamOpened('a');
    advance(10_000);
    expect(presence.of('a')).toEqual({ online: true, last_seen: '2026-01-01T00:00:10.000Z' });
    first();
    first();
    expect(presence.of('a').online).toBe(true);
    advance(5_000);
    second();
    advance(60_000);
    expect(presence.of('a')).toEqual({ online: false, last_seen: '2026-01-01T00:00:15.000Z' });
  });

  it('keeps a heartbeat online for the presence lifetime', () => {
    const { clock, advance } = clockAt(Date.UTC(2026, 0, 1));
    const presence = new IdentityPresence(clock);
    expect(presence.heartbeat('a')).toEqual({ last_seen: '2026-01-01T00:00:00.000Z', ttl_seconds: PRESENCE_TTL_SECONDS });
    advance(PRESENCE_TTL_SECONDS * 1000 - 1);
    expect(presence.of('a').online).toBe(true);
    advance(1);
    expect(presence.of('a')).toEqual({ online: false, last_seen: '2026-01-01T00:00:00.000Z' });
    expect(presence.of('b').online).toBe(false);
  });
});
