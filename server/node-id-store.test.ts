/** The node's id on a real encrypted database: made once, then the same at every start. */
import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '../test/support/store-database.ts';
import { nodeIdOf } from './node-id-store.ts';

const db = useStoreDatabase();

describe('the node id', () => {
  it('is a fresh UUID the first time and the same one afterwards', () => {
    const id = nodeIdOf(db());
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(nodeIdOf(db())).toBe(id);
  });
});
