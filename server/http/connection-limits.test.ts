import { describe, expect, it } from 'vitest';
import { ConnectionCounter, connectionBudget, PEER_CONNECTIONS, RESERVED_FDS } from './connection-limits.ts';
import { parseLimit } from './fd-limit.ts';

describe('ConnectionCounter', () => {
  it('admits up to the per-client cap, and a released connection gives its slot back once', () => {
    const counter = new ConnectionCounter({ perClient: 2, total: 10 });
    const first = counter.admit('a');
    expect(first).not.toBeNull();
    expect(counter.admit('a')).not.toBeNull();
    expect(counter.admit('a')).toBeNull();
    expect(counter.admit('b')).not.toBeNull();
    first!();
    first!();
    expect(counter.total).toBe(2);
    expect(counter.admits('a')).toBe(true);
    expect(counter.admit('a')).not.toBeNull();
    expect(counter.admit('a')).toBeNull();
  });

  it('refuses every client once the total is reached', () => {
    const counter = new ConnectionCounter({ perClient: 5, total: 3 });
    const releases = ['a', 'b', 'c'].map((key) => counter.admit(key));
    expect(counter.admit('d')).toBeNull();
    expect(counter.admits('a')).toBe(false);
    releases[1]!();
    expect(counter.admit('d')).not.toBeNull();
  });
});

describe('connectionBudget', () => {
  it('gives the peer listener its default caps and the loopback listener the rest, keeping a reserve', () => {
    expect(connectionBudget(20_000)).toEqual({ peer: PEER_CONNECTIONS, loopback: 20_000 - 512 - RESERVED_FDS });
    expect(connectionBudget(1_048_576).peer).toEqual({ perClient: 32, total: 512 });
  });

  it('keeps the peer listener to a quarter of a low descriptor limit', () => {
    expect(connectionBudget(1_024)).toEqual({ peer: { perClient: 32, total: 256 }, loopback: 1_024 - 256 - RESERVED_FDS });
    expect(connectionBudget(100).peer).toEqual({ perClient: 25, total: 25 });
    expect(connectionBudget(40).peer).toEqual({ perClient: 16, total: 16 });
  });

  it('leaves the loopback listener uncapped when there is no descriptor limit', () => {
    expect(connectionBudget(null)).toEqual({ peer: PEER_CONNECTIONS, loopback: null });
    expect(connectionBudget(Infinity)).toEqual({ peer: PEER_CONNECTIONS, loopback: null });
  });
});

describe('parseLimit', () => {
  it('reads a count or unlimited, and nothing else', () => {
    expect(parseLimit('20000')).toBe(20_000);
    expect(parseLimit('1024\n')).toBe(1_024);
    expect(parseLimit('unlimited')).toBe(Infinity);
    for (const text of [undefined, '', '0', '-1', 'lots', '12.5']) expect(parseLimit(text)).toBeNull();
  });
});
