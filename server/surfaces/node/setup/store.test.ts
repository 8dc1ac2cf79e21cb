/** The setup record on a real encrypted database: none until setup finishes, then the one record. */
import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '../../../../test/support/store-database.ts';
import { findSetupRecord, insertSetupRecord } from './store.ts';

const db = useStoreDatabase();

describe('the setup record', () => {
  it('is written once and read back', () => {
    expect(findSetupRecord(db())).toBeUndefined();
    const record = { agent_id: 'a', project_id: 'p', domain: 'node-1.local' };
    insertSetupRecord(db(), record);
    expect(findSetupRecord(db())).toEqual(record);
    expect(() => insertSetupRecord(db(), { ...record, domain: 'other.example' })).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^SQLITE_CONSTRAINT/) }),
    );
  });
});
