import { describe, expect, it } from 'vitest';
import { readPages, type KeysetPage } from './paged-list.ts';

/** A list of `n` keys `k0000…` served in pages, recording each request. */
function server(n: number) {
  const keys = Array.from({ length: n }, (_, i) => `k${String(i).padStart(4, '0')}`);
  const asked: [string | null, number][] = [];
  const read = async (after: string | null, limit: number): Promise<KeysetPage<string>> => {
    asked.push([after, limit]);
    const rest = keys.filter((k) => after === null || k > after);
    const items = rest.slice(0, limit);
    const hasMore = rest.length > limit;
    return { items, hasMore, next: hasMore ? (items.at(-1) ?? null) : null };
  };
  return { read, asked };
}

describe('readPages', () => {
  it('reads one page when that covers what is wanted', async () => {
    const { read, asked } = server(1000);
    const page = await readPages(read, 10, 200);
    expect(page.items).toHaveLength(200);
    expect(page).toMatchObject({ hasMore: true, next: 'k0199' });
    expect(asked).toEqual([[null, 200]]);
  });

  it('pages on by key until it has read as far as the reader had got', async () => {
    const { read, asked } = server(1000);
    const page = await readPages(read, 450, 200);
    expect(page.items).toHaveLength(600);
    expect(page.items.at(-1)).toBe('k0599');
    expect(new Set(page.items).size).toBe(600);
    expect(asked).toEqual([
      [null, 200],
      ['k0199', 200],
      ['k0399', 200],
    ]);
    expect(page).toMatchObject({ hasMore: true, next: 'k0599' });
  });

  it('stops at the end of the list', async () => {
    const { read } = server(250);
    expect(await readPages(read, 10_000, 200)).toEqual({ items: expect.any(Array), hasMore: false, next: null });
    expect((await readPages(read, 10_000, 200)).items).toHaveLength(250);
    expect((await readPages(server(0).read, 10, 200)).items).toEqual([]);
  });
});
