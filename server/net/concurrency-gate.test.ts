import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from './concurrency-gate.ts';

const LIMITS = { perOrigin: 2, total: 3, waitingPerOrigin: 2, waiting: 3 };
const later = (ms = 10_000) => Date.now() + ms;
const settled = async (p: Promise<unknown>) =>
  Promise.race([
    p.then(
      () => 'granted',
      (e: Error & { kind?: string }) => e.kind,
    ),
    new Promise((r) => setTimeout(() => r('pending'), 20)),
  ]);

describe('ConcurrencyGate', () => {
  it('grants up to the per-origin and total caps, then queues', async () => {
    const gate = new ConcurrencyGate(LIMITS);
    const a1 = await gate.acquire('a', later());
    await gate.acquire('a', later());
    const a3 = gate.acquire('a', later());
    expect(await settled(a3)).toBe('pending');
    await gate.acquire('b', later());
    const b2 = gate.acquire('b', later());
    expect(await settled(b2)).toBe('pending');
    expect([gate.running, gate.waiting]).toEqual([3, 2]);
    a1();
    // The freed slot is a's, and a's waiter is first in line.
    expect(await settled(a3)).toBe('granted');
    expect(await settled(b2)).toBe('pending');
  });

  it('lets a waiter for another origin pass one whose origin is full', async () => {
    const gate = new ConcurrencyGate(LIMITS);
    await gate.acquire('a', later());
    await gate.acquire('a', later());
    const b1 = await gate.acquire('b', later());
    const a3 = gate.acquire('a', later());
    const b2 = gate.acquire('b', later());
    b1();
    expect(await settled(b2)).toBe('granted');
    expect(await settled(a3)).toBe('pending');
  });

  it('refuses as busy beyond the waiting lines, per origin and in all', async () => {
    const gate = new ConcurrencyGate(LIMITS);
    for (let i = 0; i < 3; i++) await gate.acquire(`o${i}`, later());
    void gate.acquire('a', later()).catch(() => undefined);
    void gate.acquire('a', later()).catch(() => undefined);
    expect(await settled(gate.acquire('a', later()))).toBe('busy');
    void gate.acquire('b', later()).catch(() => undefined);
    expect(await settled(gate.acquire('c', later()))).toBe('busy');
  });

  it('times a waiter out at its deadline and forgets it', async () => {
    const gate = new ConcurrencyGate({ ...LIMITS, total: 1 });
    const release = await gate.acquire('a', later());
    const started = Date.now();
    await expect(gate.acquire('b', later(100))).rejects.toMatchObject({ kind: 'timed-out' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(gate.waiting).toBe(0);
    release();
    release(); // twice is harmless
    expect(gate.running).toBe(0);
  });
});
