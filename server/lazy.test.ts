import { describe, expect, it } from 'vitest';
import { lazily } from './lazy.ts';

describe('lazily', () => {
  it('loads once for concurrent first callers and keeps the module', async () => {
    let loads = 0;
    const load = lazily(async () => ({ n: ++loads }));
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).toBe(b);
    expect(await load()).toBe(a);
    expect(loads).toBe(1);
  });

  it('retries after a failed load', async () => {
    let attempts = 0;
    const load = lazily(async () => {
      if (++attempts === 1) throw new Error('not yet');
      return 'loaded';
    });
    await expect(load()).rejects.toThrow('not yet');
    expect(await load()).toBe('loaded');
    expect(attempts).toBe(2);
  });
});
