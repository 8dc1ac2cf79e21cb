/** The contacts store on a real encrypted database: per-owner lists in the order added, uniqueness, and owner-bound removal. */
import { beforeAll, describe, expect, it } from 'vitest';
import { agentRow, useStoreDatabase } from '../../../../test/support/store-database.ts';
import { insertIdentity } from '../identities/store/agents.ts';
import { insertProject } from '../projects/store.ts';
import { contactExists, contactsOf, deleteContact, insertContact } from './store.ts';

const db = useStoreDatabase();
const contact = (id: string, owner: string, address: string) => ({
  contact_id: id,
  owner_agent_id: owner,
  contact_address: address,
  label: '',
  created_at: '2026-01-01T00:00:00.000Z',
});

beforeAll(() => {
  insertProject(db(), { project_id: 'p', slug: 'p', name: 'p', namespace: null, created_at: '2026-01-01T00:00:00.000Z' });
  insertIdentity(db(), agentRow('ann', 'p'));
  insertIdentity(db(), agentRow('bob', 'p'));
});

describe('the contacts store', () => {
  it('lists an owner’s contacts in the order added, without the owner column', () => {
    insertContact(db(), contact('c2', 'ann', 'b.example/x'));
    insertContact(db(), contact('c1', 'ann', 'a.example/x'));
    insertContact(db(), contact('c3', 'bob', 'a.example/x'));
    expect(contactsOf(db(), 'ann')).toEqual([
      { contact_id: 'c2', contact_address: 'b.example/x', label: '', created_at: '2026-01-01T00:00:00.000Z' },
      { contact_id: 'c1', contact_address: 'a.example/x', label: '', created_at: '2026-01-01T00:00:00.000Z' },
    ]);
    expect(contactExists(db(), 'bob', 'a.example/x')).toBe(true);
    expect(contactExists(db(), 'bob', 'b.example/x')).toBe(false);
  });

  it('refuses the same address twice for one owner', () => {
    expect(() => insertContact(db(), contact('c4', 'ann', 'a.example/x'))).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^SQLITE_CONSTRAINT/) }),
    );
  });

  it('removes only the owner’s own contact', () => {
    deleteContact(db(), 'bob', 'c1');
    expect(contactsOf(db(), 'ann')).toHaveLength(2);
    deleteContact(db(), 'ann', 'c1');
    expect(contactsOf(db(), 'ann').map((c) => c.contact_id)).toEqual(['c2']);
  });
});
