/** The peer table's store on a real encrypted database: replace keeps the first time; listing is by domain. */
import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '../../test/support/store-database.ts';
import { deletePeer, findPeer, listPeers, upsertPeer } from './peer-store.ts';

const db = useStoreDatabase();

describe('the peer store', () => {
  it('adds, replaces (keeping created_at), lists by domain and deletes', () => {
    expect(upsertPeer(db(), 'b.test', 'https://b.test', '2026-01-01T00:00:00.000Z')).toEqual({
      domain: 'b.test',
      url: 'https://b.test',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    upsertPeer(db(), 'a.test', 'http://127.0.0.1:7000', '2026-01-02T00:00:00.000Z');
    expect(upsertPeer(db(), 'b.test', 'https://node.b.test', '2026-01-03T00:00:00.000Z')).toEqual({
      domain: 'b.test',
      url: 'https://node.b.test',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-03T00:00:00.000Z',
    });
    expect(listPeers(db()).map((p) => p.domain)).toEqual(['a.test', 'b.test']);
    expect(findPeer(db(), 'b.test')?.url).toBe('https://node.b.test');
    expect(deletePeer(db(), 'b.test')).toBe(true);
    expect(deletePeer(db(), 'b.test')).toBe(false);
    expect(findPeer(db(), 'b.test')).toBeUndefined();
  });
});
