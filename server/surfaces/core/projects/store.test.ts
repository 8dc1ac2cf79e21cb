/** The projects store on a real encrypted database: the row, slugs, and the owner's list with its identity counts. */
import { describe, expect, it } from 'vitest';
import { agentRow, useStoreDatabase } from '../../../../test/support/store-database.ts';
import { insertIdentity, setIdentityStatus } from '../identities/store/agents.ts';
import { findProject, insertProject, listProjects, projectSlugTaken } from './store.ts';

const db = useStoreDatabase();

function identity(agentId: string, projectId: string): void {
  insertIdentity(db(), agentRow(agentId, projectId));
}

describe('the projects store', () => {
  it('reads a project back as written', () => {
    const row = { project_id: 'p-1', slug: 'one', name: 'One', namespace: null, created_at: '2026-01-01T00:00:00.000Z' };
    insertProject(db(), row);
    expect(findProject(db(), 'p-1')).toEqual(row);
    expect(findProject(db(), 'p-none')).toBeUndefined();
    expect(projectSlugTaken(db(), 'one')).toBe(true);
    expect(projectSlugTaken(db(), 'two')).toBe(false);
  });

  it('lists projects oldest first, counting the identities not deleted', () => {
    insertProject(db(), { project_id: 'p-2', slug: 'two', name: 'Two', namespace: null, created_at: '2026-01-02T00:00:00.000Z' });
    identity('a-1', 'p-2');
    identity('a-2', 'p-2');
    setIdentityStatus(db(), 'a-2', 'deleted', '2026-01-03T00:00:00.000Z');
    expect(listProjects(db())).toEqual([
      { project_id: 'p-1', slug: 'one', name: 'One', namespace: null, created_at: '2026-01-01T00:00:00.000Z', identity_count: 0 },
      { project_id: 'p-2', slug: 'two', name: 'Two', namespace: null, created_at: '2026-01-02T00:00:00.000Z', identity_count: 1 },
    ]);
  });
});
